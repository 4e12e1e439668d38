import { randomBytes } from "node:crypto";

import { s256 } from "@/lib/oauth/checks/pkce";

/** A fresh PKCE pair (verifier with 256 bits, S256 challenge). */
export const calculatePKCE = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: s256(verifier) };
};
