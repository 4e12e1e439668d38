import { createHash } from "node:crypto";

import { bcs } from "@mysten/sui/bcs";
import { TransactionDataBuilder } from "@mysten/sui/transactions";
import { normalizeStructTag, normalizeSuiAddress, toBase58, toBase64 } from "@mysten/sui/utils";
import { verifyTransactionSignature } from "@mysten/sui/verify";

// The state of the Sui sandbox (a test double of a Sui fullnode, see server.ts): coin objects with owners,
// versions and digests, address balances, executed transactions with their checkpoints, and a small interpreter of
// the programmable transactions our payment builder makes (SplitCoins, MergeCoins, TransferObjects, GasCoin).
// Both wire faces (JSON-RPC and gRPC-web) read and write this one ledger.

export const SANDBOX_REFERENCE_GAS_PRICE = 1_000n;
/** The fixed gas fee every executed transaction pays (MIST), success or failure. */
export const SANDBOX_GAS_FEE = 2_000_000n;
export const SANDBOX_EPOCH = 7n;

export type CoinObject = {
  objectId: string;
  version: bigint;
  /** base58 of 32 bytes, as Sui's object digests. */
  digest: string;
  owner: string;
  /** Normalized struct tag of the coin (`T` of `Coin<T>`). */
  coinType: string;
  balance: bigint;
};

export type BalanceChange = { address: string; coinType: string; amount: bigint };

export type StoredTransaction = {
  digest: string;
  /** TransactionData BCS. */
  txBytes: Uint8Array;
  signatures: string[];
  /** SenderSignedData BCS, as a fullnode stores it (JSON-RPC rawTransaction). */
  senderSignedData: Uint8Array;
  sender: string;
  success: boolean;
  error: string | null;
  balanceChanges: BalanceChange[];
  /** null while executed but not yet in a checkpoint (see holdCheckpoints). */
  checkpoint: bigint | null;
  timestampMs: number | null;
  gasObject: { objectId: string; version: bigint; digest: string; owner: string } | null;
};

/** A request the node refuses before execution (bad signature, stale object, gas): nothing is recorded. */
export class SandboxRejection extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxRejection";
  }
}

type Argument =
  | { $kind: "GasCoin"; GasCoin: true }
  | { $kind: "Input"; Input: number }
  | { $kind: "Result"; Result: number }
  | { $kind: "NestedResult"; NestedResult: [number, number] };

const SUI = normalizeStructTag("0x2::sui::SUI");
const COIN_PREFIX = normalizeStructTag("0x2::coin::Coin<0x2::sui::SUI>").split("<")[0]!;

/** `0x2::coin::Coin<T>` with T normalized, or null for another type. */
export const coinTypeOfObjectType = (objectType: string): string | null => {
  try {
    const normalized = normalizeStructTag(objectType);
    if (!normalized.startsWith(`${COIN_PREFIX}<`) || !normalized.endsWith(">")) return null;
    return normalized.slice(COIN_PREFIX.length + 1, -1);
  } catch {
    return null;
  }
};
export const objectTypeOfCoin = (coinType: string): string => `${COIN_PREFIX}<${coinType}>`;

class ExecutionFailure extends Error {}

export type Ledger = ReturnType<typeof createLedger>;

export const createLedger = () => {
  const objects = new Map<string, CoinObject>();
  const addressBalances = new Map<string, bigint>();
  const transactions = new Map<string, StoredTransaction>();
  let checkpoint = 1n;
  let counter = 0;
  let clockOffsetMs = 0;
  let failNext: string | null = null;
  /** Executed transactions waiting for a checkpoint while checkpoints are held. */
  let held: StoredTransaction[] | null = null;

  const fresh = (label: string): Uint8Array => {
    counter += 1;
    return createHash("sha256").update(`${label}:${counter}`).digest();
  };
  const freshId = () => normalizeSuiAddress(Buffer.from(fresh("id")).toString("hex"));
  const freshDigest = () => toBase58(fresh("digest"));
  const now = () => Date.now() + clockOffsetMs;
  const key = (owner: string, coinType: string) => `${owner}|${coinType}`;

  const fund = (owner: string, coinType: string, balances: bigint[], addressBalance = 0n): CoinObject[] => {
    const who = normalizeSuiAddress(owner);
    const type = normalizeStructTag(coinType);
    const made = balances.map((balance) => {
      const coin: CoinObject = {
        objectId: freshId(),
        version: 1n,
        digest: freshDigest(),
        owner: who,
        coinType: type,
        balance,
      };
      objects.set(coin.objectId, coin);
      return coin;
    });
    if (addressBalance > 0n)
      addressBalances.set(key(who, type), (addressBalances.get(key(who, type)) ?? 0n) + addressBalance);
    return made;
  };

  /** Coin objects of an owner, largest first then by id (a stable order for paging). */
  const coinsOf = (owner: string, coinType?: string): CoinObject[] => {
    const who = normalizeSuiAddress(owner);
    const type = coinType ? normalizeStructTag(coinType) : undefined;
    return [...objects.values()]
      .filter((o) => o.owner === who && (type === undefined || o.coinType === type))
      .sort((a, b) =>
        a.balance === b.balance ? a.objectId.localeCompare(b.objectId) : a.balance > b.balance ? -1 : 1,
      );
  };

  const balanceOf = (owner: string, coinType: string) => {
    const type = normalizeStructTag(coinType);
    const coins = coinsOf(owner, type);
    const coinBalance = coins.reduce((sum, c) => sum + c.balance, 0n);
    const addressBalance = addressBalances.get(key(normalizeSuiAddress(owner), type)) ?? 0n;
    return {
      coinType: type,
      coinBalance,
      addressBalance,
      total: coinBalance + addressBalance,
      count: coins.length,
    };
  };

  const balancesOf = (owner: string) => {
    const who = normalizeSuiAddress(owner);
    const types = new Set<string>();
    for (const o of objects.values()) if (o.owner === who) types.add(o.coinType);
    for (const k of addressBalances.keys()) if (k.startsWith(`${who}|`)) types.add(k.slice(who.length + 1));
    return [...types].sort().map((type) => balanceOf(who, type));
  };

  const checkRef = (ref: { objectId: string; version: string; digest: string }, sender: string) => {
    const id = normalizeSuiAddress(ref.objectId);
    const object = objects.get(id);
    if (!object) throw new SandboxRejection(`Object ${id} does not exist or was deleted`);
    if (object.owner !== sender)
      throw new SandboxRejection(`Object ${id} is not owned by the sender ${sender}`);
    if (object.version !== BigInt(ref.version) || object.digest !== ref.digest) {
      throw new SandboxRejection(
        `Object ${id} version ${ref.version} is not available (current version ${object.version}): stale reference`,
      );
    }
    return object;
  };

  /**
   * Executes signed transaction bytes; the same bytes again return the stored result. `signatures: null` is a dry
   * run (no signature, nothing written, no checkpoint; an empty gas payment gets a mock gas coin, as Sui's does).
   */
  const run = async (txBytes: Uint8Array, signatures: string[] | null): Promise<StoredTransaction> => {
    const dryRun = signatures === null;
    const digest = TransactionDataBuilder.getDigestFromBytes(txBytes);
    const known = dryRun ? undefined : transactions.get(digest);
    if (known) return known;

    let data: ReturnType<typeof bcs.TransactionData.parse>["V1"];
    try {
      data = bcs.TransactionData.parse(txBytes).V1;
    } catch {
      throw new SandboxRejection("Transaction bytes are not a valid TransactionData");
    }
    const sender = normalizeSuiAddress(data.sender);
    if (!dryRun) {
      if (signatures.length !== 1) throw new SandboxRejection("Expected exactly one signature (no sponsors)");
      try {
        await verifyTransactionSignature(txBytes, signatures[0]!, { address: sender });
      } catch {
        throw new SandboxRejection(`Invalid signature for sender ${sender}`);
      }
      // The same bytes may have been executed while the signature was checked (concurrent submissions): from here
      // on everything is synchronous, so exactly one submission executes and the others get its stored result.
      const executedMeanwhile = transactions.get(digest);
      if (executedMeanwhile) return executedMeanwhile;
    }
    if (normalizeSuiAddress(data.gasData.owner) !== sender)
      throw new SandboxRejection("Sponsored transactions are not supported by the sandbox");
    if (BigInt(data.gasData.price) < SANDBOX_REFERENCE_GAS_PRICE)
      throw new SandboxRejection(`Gas price ${data.gasData.price} is below the reference gas price`);
    const budget = BigInt(data.gasData.budget);
    if (budget < SANDBOX_GAS_FEE)
      throw new SandboxRejection(`Gas budget ${budget} is below the fee ${SANDBOX_GAS_FEE}`);
    const ptb = data.kind.ProgrammableTransaction;
    if (!ptb) throw new SandboxRejection("Only programmable transactions are supported");
    if (data.gasData.payment.length === 0 && !dryRun) throw new SandboxRejection("No gas payment");

    // Pre-execution checks: every owned input and gas coin exists, is the sender's, at the referenced version.
    const gasCoins =
      data.gasData.payment.length === 0
        ? [
            // a dry run without gas payment: a mock gas coin far above any budget
            {
              objectId: normalizeSuiAddress("0x0"),
              version: 0n,
              digest: "",
              owner: sender,
              coinType: SUI,
              balance: budget + 10n ** 18n,
            },
          ]
        : data.gasData.payment.map((ref) => checkRef(ref, sender));
    for (const g of gasCoins)
      if (g.coinType !== SUI) throw new SandboxRejection(`Gas object ${g.objectId} is not SUI`);
    const gasTotal = gasCoins.reduce((sum, c) => sum + c.balance, 0n);
    if (gasTotal < budget)
      throw new SandboxRejection(`Gas balance ${gasTotal} is below the budget ${budget}`);
    const inputObjects = new Map<number, CoinObject>();
    ptb.inputs.forEach((input, index) => {
      if (input.$kind === "Pure") return;
      if (input.$kind !== "Object" || input.Object.$kind !== "ImmOrOwnedObject")
        throw new SandboxRejection(`Input ${index}: only owned coin objects and pure values are supported`);
      const object = checkRef(input.Object.ImmOrOwnedObject, sender);
      if (gasCoins.some((g) => g.objectId === object.objectId))
        throw new SandboxRejection(`Input ${index} is also a gas coin`);
      inputObjects.set(index, object);
    });
    for (const command of ptb.commands) {
      if (!["SplitCoins", "MergeCoins", "TransferObjects"].includes(command.$kind))
        throw new SandboxRejection(`Command ${command.$kind} is not supported by the sandbox`);
    }

    // Run on copies; commit only on success.
    const work = new Map<string, CoinObject>();
    const touched = [...gasCoins, ...inputObjects.values()];
    for (const o of touched) work.set(o.objectId, { ...o });
    const gas = work.get(gasCoins[0]!.objectId)!;
    const deleted = new Set<string>();
    for (const extra of gasCoins.slice(1)) {
      gas.balance += work.get(extra.objectId)!.balance;
      deleted.add(extra.objectId);
    }
    const created = new Set<string>();
    const moved = new Set<string>();
    const results: string[][] = [];
    const pureOf = (arg: Argument): Uint8Array => {
      if (arg.$kind !== "Input") throw new ExecutionFailure("expected a pure input");
      const input = ptb.inputs[arg.Input];
      if (!input || input.$kind !== "Pure") throw new ExecutionFailure(`input ${arg.Input} is not pure`);
      return new Uint8Array(Buffer.from(input.Pure.bytes, "base64"));
    };
    const coinOf = (arg: Argument): CoinObject => {
      let id: string | undefined;
      if (arg.$kind === "GasCoin") id = gas.objectId;
      else if (arg.$kind === "Input") id = inputObjects.get(arg.Input)?.objectId;
      else if (arg.$kind === "Result")
        id = results[arg.Result]?.length === 1 ? results[arg.Result]![0] : undefined;
      else id = results[arg.NestedResult[0]]?.[arg.NestedResult[1]];
      const coin = id === undefined ? undefined : work.get(id);
      if (!coin || deleted.has(coin.objectId))
        throw new ExecutionFailure("InvalidValueUsage: argument is not a live coin");
      return coin;
    };

    let failure: string | null = dryRun ? null : failNext;
    if (!dryRun) failNext = null;
    if (failure === null) {
      try {
        ptb.commands.forEach((command, index) => {
          const out: string[] = [];
          try {
            if (command.$kind === "SplitCoins") {
              const source = coinOf(command.SplitCoins.coin as Argument);
              for (const amountArg of command.SplitCoins.amounts) {
                const amount = BigInt(bcs.u64().parse(pureOf(amountArg as Argument)));
                const floor = source.objectId === gas.objectId ? budget : 0n;
                if (source.balance - amount < floor) throw new ExecutionFailure("InsufficientCoinBalance");
                source.balance -= amount;
                const part: CoinObject = {
                  objectId: freshId(),
                  version: 0n,
                  digest: "",
                  owner: sender,
                  coinType: source.coinType,
                  balance: amount,
                };
                work.set(part.objectId, part);
                created.add(part.objectId);
                out.push(part.objectId);
              }
            } else if (command.$kind === "MergeCoins") {
              const target = coinOf(command.MergeCoins.destination as Argument);
              for (const sourceArg of command.MergeCoins.sources) {
                const source = coinOf(sourceArg as Argument);
                if (source.objectId === gas.objectId || source.objectId === target.objectId)
                  throw new ExecutionFailure(
                    "InvalidValueUsage: cannot merge the gas coin or a coin into itself",
                  );
                if (source.coinType !== target.coinType)
                  throw new ExecutionFailure("TypeMismatch in MergeCoins");
                target.balance += source.balance;
                deleted.add(source.objectId);
              }
            } else if (command.$kind === "TransferObjects") {
              const recipient = normalizeSuiAddress(
                bcs.Address.parse(pureOf(command.TransferObjects.address as Argument)),
              );
              for (const objectArg of command.TransferObjects.objects) {
                const coin = coinOf(objectArg as Argument);
                coin.owner = recipient;
                moved.add(coin.objectId);
              }
            }
          } catch (error) {
            if (error instanceof ExecutionFailure)
              throw new ExecutionFailure(`${error.message} in command ${index}`);
            throw new ExecutionFailure(`${(error as Error).message} in command ${index}`);
          }
          results.push(out);
        });
        for (const id of created) {
          if (!moved.has(id) && !deleted.has(id))
            throw new ExecutionFailure(
              "UnusedValueWithoutDrop: a split coin was neither transferred nor merged",
            );
        }
      } catch (error) {
        failure = error instanceof ExecutionFailure ? error.message : "Unknown execution error";
      }
    }

    // Versions: every written object gets the lamport version max(input versions) + 1, as Sui does.
    const lamport = touched.reduce((max, o) => (o.version > max ? o.version : max), 0n) + 1n;
    const before = new Map<string, bigint>();
    const addChange = (map: Map<string, bigint>, owner: string, type: string, amount: bigint) =>
      map.set(key(owner, type), (map.get(key(owner, type)) ?? 0n) + amount);
    for (const o of touched) addChange(before, o.owner, o.coinType, o.balance);

    let written: CoinObject[];
    let removed: string[];
    if (failure === null) {
      gas.balance -= SANDBOX_GAS_FEE;
      written = [...work.values()].filter((o) => !deleted.has(o.objectId));
      removed = [...deleted];
    } else {
      // A failed transaction still pays gas: the gas coins are merged into the first, the fee deducted. Its owned
      // inputs keep their contents but are written at the new version, as on Sui (their old refs are stale now).
      const charged: CoinObject = { ...gasCoins[0]!, balance: gasTotal - SANDBOX_GAS_FEE };
      written = [charged, ...[...inputObjects.values()].map((o) => ({ ...o }))];
      removed = gasCoins.slice(1).map((g) => g.objectId);
    }
    for (const o of written) {
      o.version = lamport;
      o.digest = freshDigest();
      if (!dryRun) objects.set(o.objectId, o);
    }
    if (!dryRun) for (const id of removed) objects.delete(id);

    const after = new Map<string, bigint>();
    for (const o of written) addChange(after, o.owner, o.coinType, o.balance);
    const keys = new Set([...before.keys(), ...after.keys()]);
    const balanceChanges: BalanceChange[] = [];
    for (const k of [...keys].sort()) {
      const amount = (after.get(k) ?? 0n) - (before.get(k) ?? 0n);
      if (amount === 0n) continue;
      const [address, coinType] = k.split("|") as [string, string];
      balanceChanges.push({ address, coinType, amount });
    }
    const gasAfter = written.find((o) => o.objectId === gasCoins[0]!.objectId) ?? null;
    const senderSignedData = bcs.SenderSignedData.serialize([
      {
        intentMessage: {
          intent: { scope: { TransactionData: true }, version: { V0: true }, appId: { Sui: true } },
          value: bcs.TransactionData.parse(txBytes),
        },
        txSignatures: signatures ?? [],
      },
    ]).toBytes();
    const checkpointed = !dryRun && held === null;
    if (checkpointed) checkpoint += 1n;
    const stored: StoredTransaction = {
      digest,
      txBytes,
      signatures: signatures ?? [],
      senderSignedData,
      sender,
      success: failure === null,
      error: failure,
      balanceChanges,
      checkpoint: checkpointed ? checkpoint : null,
      timestampMs: checkpointed ? now() : null,
      gasObject: gasAfter
        ? {
            objectId: gasAfter.objectId,
            version: gasAfter.version,
            digest: gasAfter.digest,
            owner: gasAfter.owner,
          }
        : null,
    };
    if (!dryRun) transactions.set(digest, stored);
    if (!dryRun && held !== null) held.push(stored);
    return stored;
  };
  const execute = (txBytes: Uint8Array, signatures: string[]) => run(txBytes, signatures);

  return {
    fund,
    coinsOf,
    balanceOf,
    balancesOf,
    execute,
    /** Runs the transaction without a signature and without writing anything (dry run / simulation). */
    dryRun: (txBytes: Uint8Array) => run(txBytes, null),
    getObject: (id: string) => objects.get(normalizeSuiAddress(id)),
    getTransaction: (digest: string) => transactions.get(digest),
    /**
     * Every coin object `owner` holds moves to a new version (same balance): what another transaction that used
     * them would leave, so bytes built on the old refs are refused as stale. Answers how many moved.
     */
    touchCoinsOf: (owner: string): number => {
      const who = normalizeSuiAddress(owner);
      let moved = 0;
      for (const object of objects.values()) {
        if (object.owner !== who) continue;
        object.version += 1n;
        object.digest = freshDigest();
        moved += 1;
      }
      return moved;
    },
    /** The next executed transaction fails on chain (gas charged, nothing else moves). */
    failNextExecution: (message: string) => {
      failNext = message;
    },
    /**
     * Holds checkpoints: transactions execute (effects, balances) but stay outside any checkpoint, as between
     * execution and certification on Sui; releasing puts each held one in its own checkpoint, now.
     */
    holdCheckpoints: (hold: boolean) => {
      if (hold) {
        held ??= [];
        return;
      }
      for (const tx of held ?? []) {
        checkpoint += 1n;
        tx.checkpoint = checkpoint;
        tx.timestampMs = now();
      }
      held = null;
    },
    /** Shifts the node's clock (checkpoint timestamps) by `ms`. */
    setClockOffset: (ms: number) => {
      clockOffsetMs = ms;
    },
    now,
    checkpointHeight: () => checkpoint,
    /** Checkpoint 0's digest doubles as the chain identifier, as on Sui. */
    chainIdentifier: "sbx5ui00",
    reset: () => {
      objects.clear();
      addressBalances.clear();
      transactions.clear();
      failNext = null;
      clockOffsetMs = 0;
      held = null;
    },
    toBase64,
  };
};
