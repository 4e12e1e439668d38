import "server-only";

import { bcs } from "@mysten/sui/bcs";
import { TransactionError, type ClientWithCoreApi } from "@mysten/sui/client";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { fromBase64, normalizeSuiAddress } from "@mysten/sui/utils";

import { getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";

import { normalizeCoinType, type SuiNetwork } from "./coins";

// The chain port of the crypto rail: what prepare and completion need from a Sui fullnode, written against the
// SDK's transport-neutral `client.core` only (SUI.md §5), so the transport can change without touching callers.
// Live networks use SuiGrpcClient (public JSON-RPC was switched off in 2026); test-mode stores use the Sui sandbox
// (sandbox/sui, a fake fullnode) at SUI_SANDBOX_URL, through the same gRPC-web client. The JSON-RPC client stays
// selectable (`transport: "jsonrpc"`) for nodes that only speak it.
//
// Every call is bounded by a timeout; a node that is down, slow or answers garbage becomes ONE error,
// payment_provider_error with details {provider: "sui", reason}, never a crash (reason: timeout | unreachable |
// bad_response). "Not found" is not an error: getTransaction answers null, the caller decides (pending).

export type ChainCoin = { objectId: string; version: string; digest: string; balance: bigint };
export type ChainBalance = { coinType: string; coinBalance: bigint; addressBalance: bigint };
export type ChainBalanceChange = { address: string; coinType: string; amount: bigint };
export type ChainTransaction = {
  digest: string;
  success: boolean;
  error: string | null;
  /** From the transaction's BCS (the structured form needs more of a node than we use). */
  sender: string;
  checkpoint: bigint | null;
  timestampMs: number | null;
  balanceChanges: ChainBalanceChange[];
};

export type ChainPort = {
  network: SuiNetwork;
  /** Coin objects of `owner` of one type, largest first (every page, bounded). */
  listCoins: (owner: string, coinType: string) => Promise<ChainCoin[]>;
  /** Coin objects and address balance of one type. */
  getBalance: (owner: string, coinType: string) => Promise<ChainBalance>;
  listBalances: (owner: string) => Promise<ChainBalance[]>;
  getReferenceGasPrice: () => Promise<bigint>;
  /** The executed transaction, or null when the node does not know the digest (yet). */
  getTransaction: (digest: string) => Promise<ChainTransaction | null>;
  /**
   * Submits signed transaction bytes (base64 BCS) and answers the digest the node executed. A transaction that
   * executed and failed still has a digest (getTransaction tells the outcome); the same bytes again are harmless
   * (a node answers the stored result). A node that refuses them (bad signature, stale inputs) is a provider error.
   */
  executeTransaction: (bytesBase64: string, signatures: string[]) => Promise<string>;
};

export type ChainTransport = "grpc" | "jsonrpc";
export type ChainOptions = {
  url: string;
  network: SuiNetwork;
  transport?: ChainTransport;
  timeoutMs?: number;
};

/** Coin pages we read at most (50 coins each): a wallet with more dust than that pays from its largest coins. */
const MAX_COIN_PAGES = 10;

type FailureReason = "timeout" | "unreachable" | "bad_response" | "refused";

const failure = (reason: FailureReason, detail: string, cause?: unknown): AppError =>
  new AppError(
    "payment_provider_error",
    reason === "timeout"
      ? `The Sui fullnode did not answer in time (${detail})`
      : reason === "unreachable"
        ? `The Sui fullnode could not be reached (${detail})`
        : reason === "refused"
          ? `The Sui fullnode refused the transaction before running it (${detail})`
          : `The Sui fullnode answered something unreadable (${detail})`,
    { details: { provider: "sui", reason }, cause },
  );

const classify = (error: unknown, what: string): AppError => {
  if (error instanceof AppError) return error;
  // Transports wrap network errors (gRPC-web: RpcError around fetch's TypeError): read the whole cause chain.
  const seen: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const { name, code, message } = current as { name?: unknown; code?: unknown; message?: unknown };
    seen.push(`${String(name)} ${String(code)} ${String(message)}`);
    current = (current as { cause?: unknown }).cause;
  }
  const text = seen.join(" | ");
  if (/TimeoutError|DEADLINE_EXCEEDED|aborted|timed? ?out/i.test(text))
    return failure("timeout", what, error);
  if (
    /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket|UNAVAILABLE|SuiHTTPStatusError|status code:? 5\d\d/i.test(
      text,
    )
  )
    return failure("unreachable", what, error);
  // a node that refuses to run signed bytes answers gRPC INVALID_ARGUMENT / FAILED_PRECONDITION, or JSON-RPC -32002
  // (its input checks: a coin already spent or locked by another transaction, a stale object version)
  if (what === "executeTransaction" && / (INVALID_ARGUMENT|FAILED_PRECONDITION|-32002) /.test(` ${text} `))
    return failure("refused", what, error);
  return failure("bad_response", what, error);
};

const digits = (value: unknown, what: string): bigint => {
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
  if (typeof value === "bigint") return value;
  throw failure("bad_response", `${what} is not an integer`);
};

const isDigest = (value: unknown): value is string =>
  typeof value === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value);

const makeClient = (options: ChainOptions): ClientWithCoreApi => {
  const network = options.network === "sandbox" ? "localnet" : options.network;
  return options.transport === "jsonrpc"
    ? new SuiJsonRpcClient({ network, url: options.url })
    : new SuiGrpcClient({ network, baseUrl: options.url });
};

/** A chain port over one fullnode URL. */
export const createChainPort = (options: ChainOptions): ChainPort => {
  const client = makeClient(options);
  const timeoutMs = options.timeoutMs ?? getEnv().SUI_RPC_TIMEOUT_MS;
  const call = async <T>(what: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      // The race bounds the call even if a transport ignored the signal.
      return await Promise.race([
        run(signal),
        new Promise<never>((_, reject) =>
          signal.addEventListener("abort", () => reject(failure("timeout", `${what}, ${timeoutMs} ms`)), {
            once: true,
          }),
        ),
      ]);
    } catch (error) {
      throw classify(error, what);
    }
  };
  const balanceOf = (raw: { coinType?: unknown; coinBalance?: unknown; addressBalance?: unknown }) => {
    const coinType = typeof raw.coinType === "string" ? normalizeCoinType(raw.coinType) : null;
    if (coinType === null) throw failure("bad_response", "balance without a coin type");
    return {
      coinType,
      coinBalance: digits(raw.coinBalance, "coinBalance"),
      addressBalance: digits(raw.addressBalance ?? "0", "addressBalance"),
    };
  };

  return {
    network: options.network,
    listCoins: (owner, coinType) =>
      call("listCoins", async (signal) => {
        const coins: ChainCoin[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < MAX_COIN_PAGES; page += 1) {
          const response = await client.core.listCoins({ owner, coinType, cursor, limit: 50, signal });
          if (!Array.isArray(response?.objects)) throw failure("bad_response", "listCoins without objects");
          for (const o of response.objects) {
            if (
              typeof o.objectId !== "string" ||
              typeof o.version !== "string" ||
              typeof o.digest !== "string"
            )
              throw failure("bad_response", "coin without a full object reference");
            coins.push({
              objectId: normalizeSuiAddress(o.objectId),
              version: o.version,
              digest: o.digest,
              balance: digits(o.balance, "coin balance"),
            });
          }
          if (!response.hasNextPage || !response.cursor) break;
          cursor = response.cursor;
        }
        return coins.sort((a, b) => (a.balance === b.balance ? 0 : a.balance > b.balance ? -1 : 1));
      }),
    getBalance: (owner, coinType) =>
      call("getBalance", async (signal) => {
        const response = await client.core.getBalance({ owner, coinType, signal });
        return balanceOf({ ...response.balance, coinType: response.balance?.coinType ?? coinType });
      }),
    listBalances: (owner) =>
      call("listBalances", async (signal) => {
        const response = await client.core.listBalances({ owner, signal });
        if (!Array.isArray(response?.balances))
          throw failure("bad_response", "listBalances without balances");
        return response.balances.map(balanceOf);
      }),
    getReferenceGasPrice: () =>
      call("getReferenceGasPrice", async (signal) => {
        const response = await client.core.getReferenceGasPrice({ signal });
        const price = digits(response?.referenceGasPrice, "referenceGasPrice");
        if (price <= 0n) throw failure("bad_response", "referenceGasPrice is not positive");
        return price;
      }),
    getTransaction: (digest) =>
      call("getTransaction", async (signal) => {
        let result;
        try {
          result = await client.core.getTransaction({
            digest,
            include: { balanceChanges: true, bcs: true },
            signal,
          });
        } catch (error) {
          // The SDK's TransactionError "notFound" on both transports (gRPC NOT_FOUND, JSON-RPC -32602).
          if (error instanceof TransactionError && error.reason === "notFound") return null;
          throw error;
        }
        const tx = result?.$kind === "Transaction" ? result.Transaction : result?.FailedTransaction;
        if (!tx || !isDigest(tx.digest)) throw failure("bad_response", "transaction without a digest");
        if (!(tx.bcs instanceof Uint8Array)) throw failure("bad_response", "transaction without its BCS");
        let sender: string;
        try {
          sender = normalizeSuiAddress(bcs.TransactionData.parse(tx.bcs).V1.sender);
        } catch (error) {
          throw failure("bad_response", "transaction BCS does not parse", error);
        }
        const changes = Array.isArray(tx.balanceChanges) ? tx.balanceChanges : [];
        return {
          digest: tx.digest,
          success: result.$kind === "Transaction" && tx.status?.success === true,
          error: tx.status?.success ? null : (tx.status?.error?.message ?? "failed"),
          sender,
          checkpoint:
            tx.checkpoint === null || tx.checkpoint === undefined
              ? null
              : digits(tx.checkpoint, "checkpoint"),
          timestampMs:
            typeof tx.timestampMs === "number" && Number.isFinite(tx.timestampMs) ? tx.timestampMs : null,
          balanceChanges: changes.map((c) => {
            const coinType = typeof c.coinType === "string" ? normalizeCoinType(c.coinType) : null;
            if (coinType === null || typeof c.address !== "string")
              throw failure("bad_response", "balance change without owner or coin type");
            return { address: normalizeSuiAddress(c.address), coinType, amount: digits(c.amount, "amount") };
          }),
        };
      }),
    executeTransaction: (bytesBase64, signatures) =>
      call("executeTransaction", async (signal) => {
        let transaction: Uint8Array;
        try {
          transaction = fromBase64(bytesBase64);
        } catch (error) {
          throw new AppError("invalid_request", "The transaction bytes are not base64", { cause: error });
        }
        const result = await client.core.executeTransaction({ transaction, signatures, signal });
        const tx = result?.$kind === "Transaction" ? result.Transaction : result?.FailedTransaction;
        if (!tx || !isDigest(tx.digest))
          throw failure("bad_response", "executed transaction without a digest");
        return tx.digest;
      }),
  };
};

/** Where each network's fullnode is (env), the sandbox's read per call as the Stripe sandbox's is. */
export const fullnodeUrl = (network: SuiNetwork): string => {
  if (network === "sandbox") {
    const configured = process.env.SUI_SANDBOX_URL;
    if (!configured) {
      throw new AppError(
        "payment_provider_error",
        "Test-mode crypto payments need the Sui sandbox: set SUI_SANDBOX_URL (npm start starts one)",
        { details: { provider: "sui", reason: "unreachable" } },
      );
    }
    return configured;
  }
  const env = getEnv();
  return network === "mainnet" ? env.SUI_MAINNET_URL : env.SUI_TESTNET_URL;
};

/** The chain port of a store's network: sandbox → the Sui sandbox, testnet/mainnet → SuiGrpcClient. */
export const chainForNetwork = (
  network: SuiNetwork,
  options: { transport?: ChainTransport; timeoutMs?: number } = {},
): ChainPort => createChainPort({ network, url: fullnodeUrl(network), ...options });
