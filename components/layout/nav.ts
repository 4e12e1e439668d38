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

/** Whether a path is a store's page, where the merchant frame's own menu replaces the header's on a phone. */
export const isStoreFramePath = (pathname: string): boolean =>
  /^\/admin\/stores\/[^/]+/.test(pathname) && !/^\/admin\/stores\/new\/?$/.test(pathname);

export const linksFor = (pathname: string) => (isMerchantPath(pathname) ? MERCHANT_LINKS : NAV_LINKS);
