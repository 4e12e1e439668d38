import { randomBytes } from "node:crypto";

// The one place ids are made (STYLE.md §8): prefixed, opaque, URL-safe, 128 bits of randomness.
export const ID_PREFIXES = {
  store: "store",
  signingKey: "sk",
  product: "prod",
  variant: "var",
  location: "loc",
  cart: "cart",
  cartLine: "cli",
  checkout: "chk",
  checkoutLine: "chli",
  order: "ord",
  orderLine: "oli",
  apiKey: "key",
  merchantKey: "mkey",
  keyCall: "kcall",
  idempotency: "idem",
  orderEvent: "evt",
  fulfillmentEvent: "fev",
  orderAdjustment: "adj",
  webhookEndpoint: "whe",
  webhookAttempt: "wha",
  shippingRate: "shr",
  discountCode: "dsc",
  cartToken: "ct",
  buyer: "buyer",
  consent: "cns",
  pendingAuthorization: "oar",
  authorizationCode: "oac",
  tokenFamily: "otf",
  refreshToken: "ort",
  oauthClient: "ocl",
  serverKey: "osk",
  paymentAttempt: "pay",
  merchantAccount: "acct",
  storeMembership: "mbr",
  passwordReset: "pwr",
  capturedMail: "mail",
  owedBack: "owe",
  paymentGroup: "cpg",
  coupon: "cpn",
  couponGrant: "cgr",
  couponPayable: "cpy",
  spendEntry: "spe",
  allowance: "alw",
  catalogImport: "imp",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export const newId = (kind: IdKind): string =>
  `${ID_PREFIXES[kind]}_${randomBytes(16).toString("base64url")}`;
