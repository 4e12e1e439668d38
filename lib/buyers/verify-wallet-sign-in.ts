import "server-only";

import { isValidSuiAddress, normalizeSuiAddress } from "@mysten/sui/utils";
import { isValidPersonalMessageSignature } from "@mysten/sui/verify";

import { SANDBOX_WALLET_ADDRESS } from "./sandbox-wallet";
import { parseSignInMessage } from "./sign-in-message";

// Wallet sign-in (DECISIONS.md A: buyers sign in with their Sui wallet): a signed personal message, verified with
// @mysten/sui/verify. Returns the normalized address, or null — the caller learns only "signed in or not".

const MAX_AGE_MS = 10 * 60 * 1000;
const MAX_SKEW_MS = 60 * 1000;

export type WalletSignIn = { message: string; signature: string; address: string };

export const verifyWalletSignIn = async (
  input: WalletSignIn,
  {
    baseUrl,
    expectedNonce,
    testMode,
    now = new Date(),
  }: {
    baseUrl: string;
    expectedNonce: string;
    testMode: boolean;
    now?: Date;
  },
): Promise<string | null> => {
  if (!isValidSuiAddress(input.address)) return null;
  const address = normalizeSuiAddress(input.address);
  if (address === SANDBOX_WALLET_ADDRESS && !testMode) return null;
  const fields = parseSignInMessage(input.message);
  if (!fields) return null;
  const base = new URL(baseUrl);
  if (fields.domain !== base.host || fields.uri !== base.origin) return null;
  if (normalizeSuiAddress(fields.address) !== address) return null;
  if (!expectedNonce || fields.nonce !== expectedNonce) return null;
  const issuedAt = Date.parse(fields.issuedAt);
  if (!Number.isFinite(issuedAt)) return null;
  if (issuedAt > now.getTime() + MAX_SKEW_MS || now.getTime() - issuedAt > MAX_AGE_MS) return null;
  try {
    const bytes = new TextEncoder().encode(input.message);
    // zkLogin signatures would need a fullnode client; without one they fail closed here
    return (await isValidPersonalMessageSignature(bytes, input.signature, { address })) ? address : null;
  } catch {
    return null;
  }
};
