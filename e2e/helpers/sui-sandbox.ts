import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { fromBase64 } from "@mysten/sui/utils";

import type { FaultMode } from "@/sandbox/sui/server";

// Talking to the Sui sandbox's test-only admin hook over HTTP (sandbox/sui/server.ts), as a test, the demo's
// test wallet or a browser test does: fund wallets, script faults, hide digests, shift the clock.

export const USDC = "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC";
export const USDT = "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT";
export const WUSDC = "0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN";
export const SUI = "0x2::sui::SUI";

/** A deterministic test keypair (seed byte `n`). */
export const keypair = (n: number): Ed25519Keypair =>
  Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(n));

/** A fresh random address (merchants that only receive). */
export const randomAddress = (): string => Ed25519Keypair.generate().toSuiAddress();

const admin = async (url: string, action: string, body: unknown): Promise<unknown> => {
  const response = await fetch(`${url}/__admin/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`sui sandbox ${action}: ${JSON.stringify(json)}`);
  return json;
};

export const fund = async (
  url: string,
  address: string,
  coinType: string,
  balances: bigint[],
  addressBalance?: bigint,
): Promise<void> => {
  await admin(url, "fund", {
    address,
    coinType,
    balances: balances.map(String),
    addressBalance: addressBalance === undefined ? undefined : String(addressBalance),
  });
};

export const setFault = (url: string, mode: FaultMode | null, count?: number) =>
  admin(url, "faults", { mode, count });
export const setDelay = (url: string, ms: number) => admin(url, "delay", { ms });
export const hideDigest = (url: string, digest: string, count?: number) =>
  admin(url, "hide", { digest, count });
export const failNextExecution = (url: string, message?: string) => admin(url, "fail-next", { message });
/** Moves every coin of `address` to a new version, as a payment that used them would: bytes built before are stale. */
export const touchCoins = (url: string, address: string) => admin(url, "touch", { address });
export const shiftClock = (url: string, offsetMs: number) => admin(url, "clock", { offsetMs });
export const holdCheckpoints = (url: string, hold: boolean) => admin(url, "checkpoints", { hold });

/** Balances of one address per coin type (normalized types), coin objects and address balance summed. */
export const balances = async (url: string, address: string): Promise<Map<string, bigint>> => {
  const response = await fetch(`${url}/__admin/balances?address=${address}`);
  const body = (await response.json()) as { balances: { coinType: string; total: string }[] };
  return new Map(body.balances.map((b) => [b.coinType, BigInt(b.total)]));
};

/** What a wallet does with prepared bytes: signs them as they are with `signer` and submits them; the digest. */
export const signAndSubmitOn = async (url: string, signer: Ed25519Keypair, bytesBase64: string) => {
  const bytes = fromBase64(bytesBase64);
  const { signature } = await signer.signTransaction(bytes);
  const result = await new SuiGrpcClient({ network: "localnet", baseUrl: url }).core.executeTransaction({
    transaction: bytes,
    signatures: [signature],
  });
  return (result.$kind === "Transaction" ? result.Transaction : result.FailedTransaction).digest;
};
