// The buyer's places, shown in the header (wide) and in the menu sheet (narrow).
export const NAV_LINKS = [
  { href: "/", label: "Home" },
  { href: "/account/orders", label: "My orders" },
  { href: "/account/agents", label: "Linked agents" },
  { href: "/account/spend-caps", label: "Spend caps" },
] as const;
