import { randomFillSync } from "node:crypto";

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
  orderRequest: "oreq",
  webhookEndpoint: "whe",
  webhookAttempt: "wha",
  shippingRate: "shr",
  savedAddress: "addr",
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
  emailVerification: "evf",
  storeInvitation: "inv",
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

/** Bytes of randomness each id carries (128 bits). */
const ID_BYTES = 16;
// Ids take their randomness from a pool the CSPRNG refills 256 ids at a time: one call of randomBytes per id was
// a measurable part of a checkout's CPU (a card flow makes about twenty ids). Each byte is used once. The pool is
// this module's, so every process and worker thread has its own (Node never forks a running process).
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let used = pool.length;

/** 16 fresh random bytes, as 22 URL-safe characters. */
const randomPart = (): string => {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const part = pool.toString("base64url", used, used + ID_BYTES);
  used += ID_BYTES;
  return part;
};

export const newId = (kind: IdKind): string => `${ID_PREFIXES[kind]}_${randomPart()}`;
