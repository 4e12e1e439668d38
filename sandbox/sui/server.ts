import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

import { GrpcTypes } from "@mysten/sui/grpc";
import { fromBase64, normalizeSuiAddress, toBase64 } from "@mysten/sui/utils";

import {
  coinTypeOfObjectType,
  createLedger,
  objectTypeOfCoin,
  SANDBOX_EPOCH,
  SANDBOX_GAS_FEE,
  SANDBOX_REFERENCE_GAS_PRICE,
  SandboxRejection,
  type CoinObject,
  type Ledger,
  type StoredTransaction,
} from "./ledger";

// The Sui sandbox: a TEST DOUBLE of a Sui fullnode (DECISIONS.md A/B4, SUI.md §5). A local HTTP server on
// 127.0.0.1 with two faces over one ledger (./ledger.ts), so the real @mysten/sui clients talk to it unchanged:
// - JSON-RPC 2.0 at POST / : suix_getReferenceGasPrice, suix_getCoins, suix_getBalance, suix_getAllBalances,
//   sui_multiGetObjects, sui_getTransactionBlock, sui_executeTransactionBlock, sui_getChainIdentifier,
//   sui_getLatestCheckpointSequenceNumber, sui_getCheckpoint, suix_getLatestSuiSystemState and
//   sui_dryRunTransactionBlock (what a client that resolves a transaction itself needs);
// - gRPC-web (binary and the SDK's default base64 "text" variant) at POST /sui.rpc.v2.<Service>/<Method>:
//   LedgerService GetServiceInfo, GetEpoch, BatchGetObjects, GetTransaction; StateService ListOwnedObjects,
//   GetBalance, ListBalances; TransactionExecutionService ExecuteTransaction, SimulateTransaction (BCS input).
// It verifies signatures, ownership and object versions, interprets SplitCoins/MergeCoins/TransferObjects
// (GasCoin included), charges a fixed gas fee, puts each transaction in its own checkpoint with a timestamp and
// reports net balance changes per owner and coin. The same bytes submitted again return the stored result.
//
// Test-only admin hook (never part of Sui's API), JSON over HTTP under /__admin/:
//   POST /__admin/fund      {address, coinType, balances: ["…"], addressBalance?: "…"} → {coins: [{objectId, version, digest, balance}]}
//   POST /__admin/faults    {mode: "down" | "reset" | "garbage" | "shape" | "hang" | null, count?: n}  next n chain
//                           requests (default: all); garbage = unreadable bytes, shape = well-formed but nonsense
//   POST /__admin/delay     {ms}                       every chain request waits ms first
//   POST /__admin/hide      {digest, count?: n}        the next n reads of that digest answer "not found" (default: all)
//   POST /__admin/fail-next {message?}                 the next executed transaction fails on chain (gas charged)
//   POST /__admin/touch     {address}                  every coin of address moves to a new version (same balance), as
//                           another payment using them would: bytes built before are refused as stale → {moved: n}
//   POST /__admin/checkpoints {hold: true | false}     hold: executed transactions wait outside any checkpoint
//   POST /__admin/clock     {offsetMs}                 shifts checkpoint timestamps
//   POST /__admin/reset     {}                         empties the ledger and clears every script
//   GET  /__admin/balances?address=0x…                 → {balances: [{coinType, coinBalance, addressBalance, count}]}
// CORS is open (a browser wallet page may talk to it, as to a public fullnode).

export const FAULT_MODES = ["down", "reset", "garbage", "shape", "hang"] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export type SuiSandbox = {
  url: string;
  ledger: Ledger;
  close: () => Promise<void>;
};

type Reply = { status: number; headers: Record<string, string>; body: Uint8Array | string };

const json = (status: number, body: unknown): Reply => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
});

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
};

// ── JSON-RPC face ────────────────────────────────────────────────────────────────────────────────────

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const rpcCoin = (c: CoinObject) => ({
  coinType: c.coinType,
  coinObjectId: c.objectId,
  version: c.version.toString(),
  digest: c.digest,
  balance: c.balance.toString(),
  previousTransaction: "11111111111111111111111111111111",
});

const rpcBalance = (b: ReturnType<Ledger["balanceOf"]>) => ({
  coinType: b.coinType,
  coinObjectCount: b.count,
  totalBalance: b.total.toString(),
  lockedBalance: {},
  fundsInAddressBalance: b.addressBalance.toString(),
});

const rpcTransaction = (tx: StoredTransaction) => ({
  digest: tx.digest,
  rawTransaction: toBase64(tx.senderSignedData),
  effects: {
    messageVersion: "v1",
    status: tx.success ? { status: "success" } : { status: "failure", error: tx.error },
    executedEpoch: SANDBOX_EPOCH.toString(),
    gasUsed: {
      computationCost: SANDBOX_GAS_FEE.toString(),
      storageCost: "0",
      storageRebate: "0",
      nonRefundableStorageFee: "0",
    },
    transactionDigest: tx.digest,
    gasObject: tx.gasObject && {
      owner: { AddressOwner: tx.gasObject.owner },
      reference: {
        objectId: tx.gasObject.objectId,
        version: tx.gasObject.version.toString(),
        digest: tx.gasObject.digest,
      },
    },
  },
  balanceChanges: tx.balanceChanges.map((c) => ({
    owner: { AddressOwner: c.address },
    coinType: c.coinType,
    amount: c.amount.toString(),
  })),
  ...(tx.checkpoint === null
    ? {}
    : { timestampMs: String(tx.timestampMs), checkpoint: tx.checkpoint.toString() }),
});

const PAGE = 50;
/** Base58 of 32 bytes: the digest of checkpoint 0, from which JSON-RPC clients derive the chain identifier. */
const CHECKPOINT_ZERO_DIGEST = "4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S";

const pageOf = <T>(items: T[], cursor: unknown, limit: unknown) => {
  const start = typeof cursor === "string" && /^\d+$/.test(cursor) ? Number(cursor) : 0;
  const size = typeof limit === "number" && limit > 0 ? Math.min(limit, PAGE) : PAGE;
  const page = items.slice(start, start + size);
  const next = start + size < items.length ? String(start + size) : null;
  return { page, next };
};

const address = (value: unknown): string => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value))
    throw new RpcFailure(-32602, "Invalid params: expected a Sui address");
  return normalizeSuiAddress(value);
};

const jsonRpcMethod = async (ledger: Ledger, method: string, params: unknown[]): Promise<unknown> => {
  switch (method) {
    case "suix_getReferenceGasPrice":
      return SANDBOX_REFERENCE_GAS_PRICE.toString();
    case "sui_getChainIdentifier":
      return ledger.chainIdentifier;
    case "sui_getLatestCheckpointSequenceNumber":
      return ledger.checkpointHeight().toString();
    case "sui_getCheckpoint":
      return {
        sequenceNumber: String(params[0] ?? "0"),
        // checkpoint 0's digest is what clients derive the chain identifier from
        digest:
          String(params[0] ?? "0") === "0" ? CHECKPOINT_ZERO_DIGEST : "11111111111111111111111111111111",
        epoch: SANDBOX_EPOCH.toString(),
        timestampMs: String(ledger.now()),
        transactions: [],
        networkTotalTransactions: "0",
        epochRollingGasCostSummary: {
          computationCost: "0",
          storageCost: "0",
          storageRebate: "0",
          nonRefundableStorageFee: "0",
        },
        checkpointCommitments: [],
        validatorSignature: "",
      };
    case "suix_getLatestSuiSystemState":
      return {
        epoch: SANDBOX_EPOCH.toString(),
        protocolVersion: "100",
        systemStateVersion: "2",
        referenceGasPrice: SANDBOX_REFERENCE_GAS_PRICE.toString(),
        epochStartTimestampMs: String(ledger.now() - 3_600_000),
        epochDurationMs: "86400000",
        safeMode: false,
        safeModeStorageRewards: "0",
        safeModeComputationRewards: "0",
        safeModeStorageRebates: "0",
        safeModeNonRefundableStorageFee: "0",
        stakeSubsidyStartEpoch: "0",
        maxValidatorCount: "150",
        minValidatorJoiningStake: "0",
        validatorLowStakeThreshold: "0",
        validatorLowStakeGracePeriod: "0",
        storageFundTotalObjectStorageRebates: "0",
        storageFundNonRefundableBalance: "0",
        stakeSubsidyBalance: "0",
        stakeSubsidyDistributionCounter: "0",
        stakeSubsidyCurrentDistributionAmount: "0",
        stakeSubsidyPeriodLength: "0",
        stakeSubsidyDecreaseRate: 0,
        activeValidators: [],
      };
    case "sui_dryRunTransactionBlock": {
      if (typeof params[0] !== "string") throw new RpcFailure(-32602, "Invalid params: tx_bytes");
      let result: StoredTransaction;
      try {
        result = await ledger.dryRun(fromBase64(params[0]));
      } catch (error) {
        if (error instanceof SandboxRejection) throw new RpcFailure(-32002, error.message);
        throw error;
      }
      const { effects, balanceChanges } = rpcTransaction(result);
      return { effects, balanceChanges, objectChanges: [], events: [], input: {} };
    }
    case "suix_getCoins": {
      const [owner, coinType, cursor, limit] = params;
      const coins = ledger.coinsOf(address(owner), typeof coinType === "string" ? coinType : "0x2::sui::SUI");
      const { page, next } = pageOf(coins, cursor, limit);
      return { data: page.map(rpcCoin), nextCursor: next, hasNextPage: next !== null };
    }
    case "suix_getBalance": {
      const [owner, coinType] = params;
      return rpcBalance(
        ledger.balanceOf(address(owner), typeof coinType === "string" ? coinType : "0x2::sui::SUI"),
      );
    }
    case "suix_getAllBalances":
      return ledger.balancesOf(address(params[0])).map(rpcBalance);
    case "sui_multiGetObjects": {
      const ids = Array.isArray(params[0]) ? params[0] : [];
      return ids.map((id: unknown) => {
        const object = typeof id === "string" ? ledger.getObject(id) : undefined;
        if (!object) return { error: { code: "notExists", object_id: id } };
        return {
          data: {
            objectId: object.objectId,
            version: object.version.toString(),
            digest: object.digest,
            type: objectTypeOfCoin(object.coinType),
            owner: { AddressOwner: object.owner },
            previousTransaction: "11111111111111111111111111111111",
            storageRebate: "0",
          },
        };
      });
    }
    case "sui_getTransactionBlock": {
      const digest = String(params[0]);
      const tx = ledger.getTransaction(digest);
      if (!tx)
        throw new RpcFailure(
          -32602,
          `Could not find the referenced transaction [TransactionDigest(${digest})].`,
        );
      return rpcTransaction(tx);
    }
    case "sui_executeTransactionBlock": {
      const [bytes, signatures] = params;
      if (typeof bytes !== "string" || !Array.isArray(signatures))
        throw new RpcFailure(-32602, "Invalid params: tx_bytes and signatures");
      return rpcTransaction(await execute(ledger, fromBase64(bytes), signatures.map(String)));
    }
    default:
      throw new RpcFailure(-32601, `Method not found: ${method}`);
  }
};

const execute = async (ledger: Ledger, bytes: Uint8Array, signatures: string[]) => {
  try {
    return await ledger.execute(bytes, signatures);
  } catch (error) {
    if (error instanceof SandboxRejection) throw new RpcFailure(-32002, error.message);
    throw error;
  }
};

const handleJsonRpc = async (ledger: Ledger, body: Buffer, hidden: Hidden): Promise<Reply> => {
  let request: { id?: unknown; method?: unknown; params?: unknown };
  try {
    request = JSON.parse(body.toString("utf8")) as typeof request;
  } catch {
    return json(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  }
  const id = request.id ?? null;
  try {
    const method = String(request.method);
    const params = Array.isArray(request.params) ? request.params : [];
    if (method === "sui_getTransactionBlock" && hidden.take(String(params[0]))) {
      throw new RpcFailure(
        -32602,
        `Could not find the referenced transaction [TransactionDigest(${String(params[0])})].`,
      );
    }
    return json(200, { jsonrpc: "2.0", id, result: await jsonRpcMethod(ledger, method, params) });
  } catch (error) {
    if (error instanceof RpcFailure)
      return json(200, { jsonrpc: "2.0", id, error: { code: error.code, message: error.message } });
    return json(200, { jsonrpc: "2.0", id, error: { code: -32603, message: (error as Error).message } });
  }
};

// ── gRPC-web face ────────────────────────────────────────────────────────────────────────────────────

/** gRPC status codes we answer with. */
const GRPC = { OK: 0, INVALID_ARGUMENT: 3, NOT_FOUND: 5, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

class GrpcFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Message = Record<string, unknown>;
type MethodInfo = {
  name: string;
  I: { fromBinary: (bytes: Uint8Array) => object };
  O: { create: (value?: object) => object; toBinary: (message: never) => Uint8Array };
};
type ServiceInfo = { typeName: string; methods: readonly MethodInfo[] };

const SERVICES = [
  GrpcTypes.LedgerService,
  GrpcTypes.StateService,
  GrpcTypes.TransactionExecutionService,
] as unknown as ServiceInfo[];

const grpcOwner = (owner: string) => ({ kind: GrpcTypes.Owner_OwnerKind.ADDRESS, address: owner });
const grpcObject = (c: CoinObject) => ({
  objectId: c.objectId,
  version: c.version,
  digest: c.digest,
  owner: grpcOwner(c.owner),
  objectType: objectTypeOfCoin(c.coinType),
  balance: c.balance,
});
const grpcBalance = (b: ReturnType<Ledger["balanceOf"]>) => ({
  coinType: b.coinType,
  balance: b.total,
  coinBalance: b.coinBalance,
  addressBalance: b.addressBalance,
});
const grpcTransaction = (tx: StoredTransaction) => ({
  digest: tx.digest,
  transaction: { bcs: { name: "TransactionData", value: tx.txBytes }, digest: tx.digest, sender: tx.sender },
  signatures: tx.signatures.map((s) => ({ bcs: { name: "UserSignatureBytes", value: fromBase64(s) } })),
  effects: {
    digest: tx.digest,
    transactionDigest: tx.digest,
    version: 2,
    status: tx.success
      ? { success: true }
      : { success: false, error: { description: tx.error ?? "failed", kind: 0 } },
    epoch: SANDBOX_EPOCH,
    gasUsed: {
      computationCost: SANDBOX_GAS_FEE,
      storageCost: 0n,
      storageRebate: 0n,
      nonRefundableStorageFee: 0n,
    },
    gasObject: tx.gasObject
      ? {
          objectId: tx.gasObject.objectId,
          outputVersion: tx.gasObject.version,
          outputDigest: tx.gasObject.digest,
        }
      : undefined,
    changedObjects: [],
    dependencies: [],
    unchangedConsensusObjects: [],
  },
  checkpoint: tx.checkpoint ?? undefined,
  timestamp:
    tx.timestampMs === null
      ? undefined
      : { seconds: BigInt(Math.floor(tx.timestampMs / 1000)), nanos: (tx.timestampMs % 1000) * 1_000_000 },
  balanceChanges: tx.balanceChanges.map((c) => ({
    address: c.address,
    coinType: c.coinType,
    amount: c.amount.toString(),
  })),
});

const grpcMethod = async (ledger: Ledger, hidden: Hidden, name: string, input: Message): Promise<object> => {
  switch (name) {
    case "sui.rpc.v2.LedgerService/GetServiceInfo":
      return {
        chainId: ledger.chainIdentifier,
        chain: "sandbox",
        epoch: SANDBOX_EPOCH,
        checkpointHeight: ledger.checkpointHeight(),
        timestamp: { seconds: BigInt(Math.floor(ledger.now() / 1000)), nanos: 0 },
      };
    case "sui.rpc.v2.LedgerService/GetEpoch":
      return { epoch: { epoch: SANDBOX_EPOCH, referenceGasPrice: SANDBOX_REFERENCE_GAS_PRICE } };
    case "sui.rpc.v2.StateService/ListOwnedObjects": {
      const owner = String(input.owner ?? "");
      if (!/^0x[0-9a-fA-F]{1,64}$/.test(owner)) throw new GrpcFailure(GRPC.INVALID_ARGUMENT, "invalid owner");
      const wanted = typeof input.objectType === "string" ? coinTypeOfObjectType(input.objectType) : null;
      if (typeof input.objectType === "string" && wanted === null) return { objects: [] };
      const coins = ledger.coinsOf(owner, wanted ?? undefined);
      const token =
        input.pageToken instanceof Uint8Array ? Buffer.from(input.pageToken).toString("utf8") : null;
      const { page, next } = pageOf(
        coins,
        token,
        input.pageSize === undefined ? undefined : Number(input.pageSize),
      );
      return {
        objects: page.map(grpcObject),
        nextPageToken: next === null ? undefined : new Uint8Array(Buffer.from(next, "utf8")),
      };
    }
    case "sui.rpc.v2.StateService/GetBalance": {
      const owner = String(input.owner ?? "");
      if (!/^0x[0-9a-fA-F]{1,64}$/.test(owner)) throw new GrpcFailure(GRPC.INVALID_ARGUMENT, "invalid owner");
      return { balance: grpcBalance(ledger.balanceOf(owner, String(input.coinType ?? "0x2::sui::SUI"))) };
    }
    case "sui.rpc.v2.StateService/ListBalances": {
      const owner = String(input.owner ?? "");
      if (!/^0x[0-9a-fA-F]{1,64}$/.test(owner)) throw new GrpcFailure(GRPC.INVALID_ARGUMENT, "invalid owner");
      return { balances: ledger.balancesOf(owner).map(grpcBalance) };
    }
    case "sui.rpc.v2.LedgerService/BatchGetObjects": {
      const requests = Array.isArray(input.requests) ? (input.requests as Message[]) : [];
      return {
        objects: requests.map((r) => {
          const object = ledger.getObject(String(r.objectId ?? ""));
          return object
            ? { result: { oneofKind: "object", object: grpcObject(object) } }
            : {
                result: { oneofKind: "error", error: { code: GRPC.NOT_FOUND, message: "object not found" } },
              };
        }),
      };
    }
    case "sui.rpc.v2.LedgerService/GetTransaction": {
      const digest = String(input.digest ?? "");
      const tx = hidden.take(digest) ? undefined : ledger.getTransaction(digest);
      if (!tx) throw new GrpcFailure(GRPC.NOT_FOUND, `Transaction ${digest} not found`);
      return { transaction: grpcTransaction(tx) };
    }
    case "sui.rpc.v2.TransactionExecutionService/ExecuteTransaction": {
      const transaction = input.transaction as { bcs?: { value?: Uint8Array } } | undefined;
      const bytes = transaction?.bcs?.value;
      const signatures = Array.isArray(input.signatures)
        ? (input.signatures as { bcs?: { value?: Uint8Array } }[])
        : [];
      if (!bytes) throw new GrpcFailure(GRPC.INVALID_ARGUMENT, "transaction.bcs is required");
      try {
        const tx = await ledger.execute(
          bytes,
          signatures.map((s) => toBase64(s.bcs?.value ?? new Uint8Array())),
        );
        return { transaction: grpcTransaction(tx) };
      } catch (error) {
        if (error instanceof SandboxRejection) throw new GrpcFailure(GRPC.INVALID_ARGUMENT, error.message);
        throw error;
      }
    }
    case "sui.rpc.v2.TransactionExecutionService/SimulateTransaction": {
      // BCS transactions only (what a page or wallet holding our prepared bytes sends); the structured form a
      // client sends to have the node resolve a transaction for it is not emulated.
      const transaction = input.transaction as { bcs?: { value?: Uint8Array } } | undefined;
      const bytes = transaction?.bcs?.value;
      if (!bytes)
        throw new GrpcFailure(
          GRPC.UNIMPLEMENTED,
          "the Sui sandbox simulates BCS transactions only (transaction.bcs)",
        );
      if (input.doGasSelection === true)
        throw new GrpcFailure(GRPC.UNIMPLEMENTED, "the Sui sandbox does not select gas: set the gas payment");
      try {
        return { transaction: grpcTransaction(await ledger.dryRun(bytes)), commandOutputs: [] };
      } catch (error) {
        if (error instanceof SandboxRejection) throw new GrpcFailure(GRPC.INVALID_ARGUMENT, error.message);
        throw error;
      }
    }
    default:
      throw new GrpcFailure(GRPC.UNIMPLEMENTED, `${name} is not implemented by the Sui sandbox`);
  }
};

const frame = (flag: number, payload: Uint8Array): Buffer => {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, Buffer.from(payload)]);
};

const handleGrpc = async (
  ledger: Ledger,
  hidden: Hidden,
  path: string,
  contentType: string,
  body: Buffer,
): Promise<Reply> => {
  const text = contentType.includes("grpc-web-text");
  const replyType = text ? "application/grpc-web-text+proto" : "application/grpc-web+proto";
  const status = (code: number, message: string): Reply => ({
    status: 200,
    headers: {
      "content-type": replyType,
      "grpc-status": String(code),
      "grpc-message": encodeURIComponent(message),
    },
    body: "",
  });
  const name = path.slice(1);
  const [serviceName, methodName] = name.split("/");
  const method = SERVICES.find((s) => s.typeName === serviceName)?.methods.find((m) => m.name === methodName);
  if (!method) return status(GRPC.UNIMPLEMENTED, `${name} is not implemented by the Sui sandbox`);
  let input: Message;
  try {
    const raw = text ? Buffer.from(body.toString("ascii"), "base64") : body;
    if (raw.length < 5 || raw[0] !== 0) throw new Error("bad frame");
    const length = raw.readUInt32BE(1);
    input = method.I.fromBinary(new Uint8Array(raw.subarray(5, 5 + length))) as Message;
  } catch {
    return status(GRPC.INVALID_ARGUMENT, "malformed gRPC-web request");
  }
  try {
    const output = await grpcMethod(ledger, hidden, name, input);
    const bytes = method.O.toBinary(method.O.create(output) as never);
    const payload = Buffer.concat([
      frame(0, bytes),
      frame(0x80, Buffer.from("grpc-status:0\r\ngrpc-message:\r\n")),
    ]);
    return {
      status: 200,
      headers: { "content-type": replyType },
      body: text ? payload.toString("base64") : new Uint8Array(payload),
    };
  } catch (error) {
    if (error instanceof GrpcFailure) return status(error.status, error.message);
    return status(GRPC.INTERNAL, (error as Error).message);
  }
};

/** A well-formed answer that makes no sense: JSON-RPC with a foreign result, gRPC-web with a bogus transaction. */
const nonsense = (path: string, contentType: string): Reply => {
  if (!path.startsWith("/sui.rpc."))
    return json(200, { jsonrpc: "2.0", id: 1, result: { unexpected: true } });
  const [serviceName, methodName] = path.slice(1).split("/");
  const method = SERVICES.find((s) => s.typeName === serviceName)?.methods.find((m) => m.name === methodName);
  const output =
    methodName === "GetTransaction"
      ? {
          transaction: { digest: "not a digest", transaction: { bcs: { value: new Uint8Array([1, 2, 3]) } } },
        }
      : {};
  const bytes = method ? method.O.toBinary(method.O.create(output) as never) : new Uint8Array();
  const payload = Buffer.concat([
    frame(0, bytes),
    frame(0x80, Buffer.from("grpc-status:0\r\ngrpc-message:\r\n")),
  ]);
  const text = contentType.includes("grpc-web-text");
  return {
    status: 200,
    headers: { "content-type": text ? "application/grpc-web-text+proto" : "application/grpc-web+proto" },
    body: text ? payload.toString("base64") : new Uint8Array(payload),
  };
};

// ── Scripts (admin hook) ─────────────────────────────────────────────────────────────────────────────

type Hidden = {
  take: (digest: string) => boolean;
  set: (digest: string, count: number) => void;
  clear: () => void;
};

const createHidden = (): Hidden => {
  const counts = new Map<string, number>();
  return {
    take: (digest) => {
      const left = counts.get(digest);
      if (left === undefined) return false;
      if (left !== Infinity) {
        if (left <= 1) counts.delete(digest);
        else counts.set(digest, left - 1);
      }
      return true;
    },
    set: (digest, count) => {
      if (count <= 0) counts.delete(digest);
      else counts.set(digest, count);
    },
    clear: () => counts.clear(),
  };
};

const countOf = (value: unknown): number =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : Infinity;

const amount = (value: unknown, field: string): bigint => {
  if (typeof value !== "string" && typeof value !== "number")
    throw new Error(`${field} must be a string of digits`);
  const text = String(value);
  if (!/^\d+$/.test(text)) throw new Error(`${field} must be a string of digits`);
  return BigInt(text);
};

/** Starts a sandbox on 127.0.0.1 (port 0 = any free port); `unref` lets a test process exit around it. */
export const startSuiSandbox = async ({
  port: wanted = 0,
  unref = true,
}: { port?: number; unref?: boolean } = {}): Promise<SuiSandbox> => {
  const ledger = createLedger();
  const hidden = createHidden();
  let fault: { mode: FaultMode; remaining: number } | null = null;
  let delayMs = 0;

  const admin = async (req: IncomingMessage, url: URL, body: Buffer): Promise<Reply> => {
    const action = url.pathname.slice("/__admin/".length);
    if (req.method === "GET" && action === "balances") {
      const owner = url.searchParams.get("address") ?? "";
      if (!/^0x[0-9a-fA-F]{1,64}$/.test(owner)) return json(400, { error: "address is required" });
      return json(200, { balances: ledger.balancesOf(owner) });
    }
    if (req.method !== "POST") return json(405, { error: "POST" });
    let input: Record<string, unknown>;
    try {
      input = body.length ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {};
    } catch {
      return json(400, { error: "JSON body expected" });
    }
    try {
      switch (action) {
        case "fund": {
          const balances = Array.isArray(input.balances)
            ? input.balances.map((b, i) => amount(b, `balances[${i}]`))
            : [];
          const coins = ledger.fund(
            String(input.address),
            String(input.coinType ?? "0x2::sui::SUI"),
            balances,
            input.addressBalance === undefined ? 0n : amount(input.addressBalance, "addressBalance"),
          );
          return json(200, { coins });
        }
        case "faults": {
          const mode = input.mode ?? null;
          if (mode !== null && !FAULT_MODES.includes(mode as FaultMode))
            throw new Error(`mode must be one of ${FAULT_MODES.join(", ")} or null`);
          fault = mode ? { mode: mode as FaultMode, remaining: countOf(input.count) } : null;
          return json(200, { ok: true });
        }
        case "delay": {
          const ms = Number(input.ms ?? 0);
          if (!Number.isInteger(ms) || ms < 0 || ms > 600_000)
            throw new Error("ms must be an integer from 0 to 600000");
          delayMs = ms;
          return json(200, { ok: true });
        }
        case "hide":
          hidden.set(String(input.digest), countOf(input.count));
          return json(200, { ok: true });
        case "touch": {
          const address = String(input.address ?? "");
          if (!/^0x[0-9a-fA-F]{1,64}$/.test(address)) throw new Error("address must be a Sui address (0x…)");
          return json(200, { moved: ledger.touchCoinsOf(address) });
        }
        case "fail-next":
          ledger.failNextExecution(String(input.message ?? "MoveAbort: scripted failure"));
          return json(200, { ok: true });
        case "checkpoints":
          ledger.holdCheckpoints(input.hold === true);
          return json(200, { ok: true });
        case "clock":
          ledger.setClockOffset(Number(input.offsetMs ?? 0));
          return json(200, { ok: true, now: ledger.now() });
        case "reset":
          ledger.reset();
          hidden.clear();
          fault = null;
          delayMs = 0;
          return json(200, { ok: true });
        default:
          return json(404, { error: `unknown admin action ${action}` });
      }
    } catch (error) {
      return json(400, { error: (error as Error).message });
    }
  };

  const cors = {
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "*",
    "access-control-allow-methods": "POST, GET, OPTIONS",
    "access-control-expose-headers": "grpc-status, grpc-message",
  };

  const send = (res: ServerResponse, reply: Reply) => {
    res.writeHead(reply.status, { ...cors, ...reply.headers });
    res.end(reply.body);
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (req.method === "OPTIONS") return send(res, { status: 204, headers: {}, body: "" });
      const body = await readBody(req);
      if (url.pathname.startsWith("/__admin/")) return send(res, await admin(req, url, body));
      // Scripted faults and delays apply to the chain faces only.
      if (delayMs > 0) await sleep(delayMs);
      if (fault && fault.remaining > 0) {
        const { mode } = fault;
        fault.remaining -= 1;
        if (mode === "hang") return; // never answers: the client's timeout must end it
        if (mode === "reset") return req.socket.destroy();
        if (mode === "down")
          return send(res, { status: 503, headers: { "content-type": "text/html" }, body: "<h1>503</h1>" });
        const grpc = url.pathname.startsWith("/sui.rpc.");
        if (mode === "shape")
          return send(res, nonsense(url.pathname, String(req.headers["content-type"] ?? "")));
        return send(res, {
          status: 200,
          headers: { "content-type": grpc ? "application/grpc-web-text+proto" : "application/json" },
          body: grpc
            ? Buffer.from([0, 0, 0, 0, 9, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6]).toString("base64")
            : '{"jsonrpc":"2.0","id":1,"result":{"garbage":[',
        });
      }
      if (req.method === "POST" && url.pathname.startsWith("/sui.rpc.")) {
        return send(
          res,
          await handleGrpc(ledger, hidden, url.pathname, String(req.headers["content-type"] ?? ""), body),
        );
      }
      if (req.method === "POST" && url.pathname === "/")
        return send(res, await handleJsonRpc(ledger, body, hidden));
      return send(res, json(404, { error: "not found" }));
    })().catch((error: unknown) => {
      if (!res.headersSent) send(res, json(500, { error: (error as Error).message }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(wanted, "127.0.0.1", resolve));
  if (unref) server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ledger,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const KEY = Symbol.for("agent-commerce-service.sui-sandbox");
type Holder = { [KEY]?: Promise<SuiSandbox> };

/** The Sui sandbox of a test process (shared across module instances through globalThis). */
export const suiSandbox = (): Promise<SuiSandbox> => ((globalThis as Holder)[KEY] ??= startSuiSandbox());
