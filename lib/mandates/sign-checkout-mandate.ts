import { CompactSign, importJWK, type JWK } from "jose";

import { mandatePayload, type MandateTerms } from "./mandate-terms";

// The agent side of DECISIONS.md B5 (verification kit, benchmark and tests): sign the JCS terms with ES256, put
// kid/exp/merchant/checkout_id in the protected header and drop the payload from the compact form.

export const signCheckoutMandate = async (
  terms: MandateTerms,
  { privateJwk, kid, exp }: { privateJwk: JWK; kid: string; exp: number },
): Promise<string> => {
  const key = await importJWK({ ...privateJwk, alg: "ES256" }, "ES256");
  const jws = await new CompactSign(mandatePayload(terms))
    .setProtectedHeader({ alg: "ES256", kid, exp, merchant: terms.merchant, checkout_id: terms.checkout_id })
    .sign(key);
  const [header, , signature] = jws.split(".");
  return `${header}..${signature}`;
};
