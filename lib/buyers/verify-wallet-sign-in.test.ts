import assert from "node:assert/strict";
import { test } from "node:test";

import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";

import { SANDBOX_WALLET_ADDRESS, sandboxKeypair } from "./sandbox-wallet";
import { buildSignInMessage, parseSignInMessage } from "./sign-in-message";
import { verifyWalletSignIn } from "./verify-wallet-sign-in";

const BASE = "http://127.0.0.1:3000";
const NOW = new Date("2026-11-22T01:00:00Z");

const signed = async (
  keypair: Ed25519Keypair,
  overrides: Partial<Parameters<typeof buildSignInMessage>[0]> = {},
) => {
  const message = buildSignInMessage({
    domain: "127.0.0.1:3000",
    address: keypair.toSuiAddress(),
    uri: BASE,
    nonce: "csrf-nonce",
    issuedAt: NOW.toISOString(),
    ...overrides,
  });
  const { signature } = await keypair.signPersonalMessage(new TextEncoder().encode(message));
  return { message, signature, address: keypair.toSuiAddress() };
};

const opts = { baseUrl: BASE, expectedNonce: "csrf-nonce", testMode: true, now: NOW };

test("a wallet's personal-message signature signs the buyer in as its address", async () => {
  const keypair = Ed25519Keypair.generate();
  assert.equal(await verifyWalletSignIn(await signed(keypair), opts), keypair.toSuiAddress());
});

test("refused: another address, tampered text, wrong nonce, other domain, stale or future message", async () => {
  const keypair = Ed25519Keypair.generate();
  const other = Ed25519Keypair.generate();
  const good = await signed(keypair);
  assert.equal(await verifyWalletSignIn({ ...good, address: other.toSuiAddress() }, opts), null);
  assert.equal(
    await verifyWalletSignIn({ ...good, message: good.message.replace("csrf-nonce", "csrf-nonce2") }, opts),
    null,
  );
  assert.equal(await verifyWalletSignIn(good, { ...opts, expectedNonce: "other" }), null);
  assert.equal(await verifyWalletSignIn(await signed(keypair, { domain: "evil.example" }), opts), null);
  const stale = await signed(keypair, { issuedAt: new Date(NOW.getTime() - 11 * 60_000).toISOString() });
  assert.equal(await verifyWalletSignIn(stale, opts), null);
  const future = await signed(keypair, { issuedAt: new Date(NOW.getTime() + 5 * 60_000).toISOString() });
  assert.equal(await verifyWalletSignIn(future, opts), null);
  const signedByOther = { ...good, signature: (await signed(other)).signature };
  assert.equal(await verifyWalletSignIn(signedByOther, opts), null);
  assert.equal(await verifyWalletSignIn({ ...good, signature: "garbage" }, opts), null);
});

test("the sandbox wallet works in test mode only", async () => {
  const sandbox = await signed(sandboxKeypair());
  assert.equal(sandbox.address, SANDBOX_WALLET_ADDRESS);
  assert.equal(await verifyWalletSignIn(sandbox, opts), SANDBOX_WALLET_ADDRESS);
  assert.equal(await verifyWalletSignIn(sandbox, { ...opts, testMode: false }), null);
});

test("the sign-in message parses back to its fields and nothing else", () => {
  const fields = {
    domain: "h:1",
    address: "0x1",
    uri: "http://h:1",
    nonce: "n",
    issuedAt: "2026-01-01T00:00:00Z",
  };
  assert.deepEqual(parseSignInMessage(buildSignInMessage(fields)), fields);
  assert.equal(parseSignInMessage(`${buildSignInMessage(fields)}\nextra`), null);
  assert.equal(parseSignInMessage("hello"), null);
});
