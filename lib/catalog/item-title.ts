/**
 * What a variant is called on a line (cart, checkout, order, payment pages): the product's title, followed by the
 * variant's when it has its own ("Rain Jacket — Large", but "Trail Boot" for a product's only variant).
 */
export const itemTitle = (productTitle: string, variantTitle: string): string =>
  variantTitle === productTitle ? productTitle : `${productTitle} — ${variantTitle}`;
