import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { expect, type APIRequestContext } from "@playwright/test";

import { buildSignInMessage } from "../../lib/buyers/sign-in-message";

// A buyer signing in with their own wallet as the sign-in card does (components/oauth/wallet-sign-in.tsx), over the
// browser context's requests so the session cookie lands in that context: next-auth's CSRF token as the nonce, the
// message signed with the wallet's key, posted to the "sui-wallet" provider.

export const signInWithWallet = async (
  request: APIRequestContext,
  baseUrl: string,
  wallet: Ed25519Keypair,
  /** The message's "Issued At" (the server's time, when a spec moved its clock). */
  issuedAtMs = Date.now(),
): Promise<void> => {
  const { csrfToken } = (await (await request.get(`${baseUrl}/api/auth/csrf`)).json()) as {
    csrfToken: string;
  };
  const address = wallet.toSuiAddress();
  const url = new URL(baseUrl);
  const message = buildSignInMessage({
    domain: url.host,
    address,
    uri: url.origin,
    nonce: csrfToken,
    issuedAt: new Date(issuedAtMs).toISOString(),
  });
  const { signature } = await wallet.signPersonalMessage(new TextEncoder().encode(message));
  await request.post(`${baseUrl}/api/auth/callback/sui-wallet`, {
    form: { csrfToken, message, signature, address, json: "true" },
  });
  const session = (await (await request.get(`${baseUrl}/api/auth/session`)).json()) as { address?: string };
  expect(session.address, "signed in with the wallet").toBe(address);
};
