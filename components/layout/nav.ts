// The places in the header (wide) and in the menu sheet (narrow). A buyer's pages show the buyer's places; the
// merchant and developer area (/admin, /developers) shows the merchant's instead, never the buyer's, since a
// merchant signed in to the admin has no buyer account in that session.
export const NAV_LINKS = [
  { href: "/", label: "Home" },
  { href: "/account/orders", label: "My orders" },
  { href: "/account/agents", label: "Linked agents" },
  { href: "/account/spend-caps", label: "Spend caps" },
] as const;

export const MERCHANT_LINKS = [
  { href: "/admin", label: "Stores" },
  { href: "/developers", label: "Developers" },
] as const;

const under = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

/** Whether a path is in the merchant and developer area. */
export const isMerchantPath = (pathname: string): boolean =>
  under(pathname, "/admin") || under(pathname, "/developers");

// The pages a signed-in merchant reaches inside the merchant frame (components/admin/frame/merchant-frame.tsx); the
// sign-in, sign-up, password and email-verification pages stay plain.
const FRAMED = /^\/(admin\/?$|admin\/(stores|mail|operator|invitations)(\/|$)|developers(\/|$))/;

/**
 * Whether a path is framed for a signed-in merchant: there the header spans the full width (aligned with the
 * frame's sidebar) and the frame's own menu replaces the header's on a phone.
 */
export const isFramePath = (pathname: string): boolean => FRAMED.test(pathname);

export const linksFor = (pathname: string) => (isMerchantPath(pathname) ? MERCHANT_LINKS : NAV_LINKS);
