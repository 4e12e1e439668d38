import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";

// The sandbox wallet of test mode (OAUTH_TEST_MODE; DECISIONS.md B4 "test mode"): a fixed, publicly known Ed25519
// key so demos and browser tests sign in as one deterministic buyer with a real Sui personal-message signature.
// Its secret is public on purpose; outside test mode the server refuses its address. No "server-only": the
// sign-in page signs with it in the browser.

const SANDBOX_SEED = "agent-commerce-service sandbox buyer wallet v1";

const seedBytes = (): Uint8Array => {
  // 32 bytes from the seed text, repeated (deterministic, no hashing needed for a public sandbox key)
  const text = new TextEncoder().encode(SANDBOX_SEED);
  return Uint8Array.from({ length: 32 }, (_, i) => text[i % text.length]!);
};

export const sandboxKeypair = (): Ed25519Keypair => Ed25519Keypair.fromSecretKey(seedBytes());

export const SANDBOX_WALLET_ADDRESS = sandboxKeypair().toSuiAddress();
