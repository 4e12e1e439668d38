import "server-only";

import { createHash } from "node:crypto";

import { getDb, isUniqueViolation, type Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { execute, jsonParam, query, sql, statementOf } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { CryptoPayment, Store } from "@/lib/generated/prisma/client";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import type { AttemptOutcome, PaymentRail, RailCredential, StartAttemptRequest } from "../rail";
import { GAS_BUDGET, type PaymentLeg } from "./build-payment";
import { chainForNetwork, type ChainPort } from "./chain";
import {
  findCoinByType,
  isSameCoinType,
  normalizeAddress,
  settlementNetwork,
  storedCoinSymbols,
} from "./coins";
import { oracleForMode, type PriceOracle } from "./oracle";
import { preparePayment, type PreparedPayment } from "./prepare-payment";
import { unitsAtCurrentRate } from "./quote";
import { verifyDigest, type LegCheck, type VerifyOutcome } from "./verify-digest";

// The crypto rail (svc.crypto) behind the rail port (rail.ts), so completion, the one finisher, the sweep and
// order refunds treat it as they treat the card rail:
// - start = prepare: quote and build the unsigned transaction paying the store's payout address, stored as a
//   crypto_payments row whose prepared digest is the attempt's provider reference (requires_action: the buyer's
//   wallet signs it);
// - settle = judge the digest the agent hands over on the chain (verify-digest.ts), claim it (a digest pays one
//   prepared payment, once: crypto_payments.settled_digest is unique), and answer succeeded, processing (the node
//   cannot tell yet) or declined;
// - retrieve = the chain's view of a prepared payment (its settled, submitted or prepared digest), for the sweep;
// - cancel: a signed transaction cannot be recalled, so never cancelable — the sweep watches a replaced prepare and
//   the finisher decides if it ever lands;
// - refund: the service holds no keys that could send crypto back, so a refund is the money recorded as owed back
//   to the buyer (crypto_owed_back), a pending merchant action closed by the refund transaction's digest.
// Money that arrived but cannot pay (short, late and no longer covering, a second payment) is recorded as owed back
// here, at the moment it is seen, before any answer.

export type CryptoRailDeps = {
  chain: (store: Store) => ChainPort;
  oracle: (store: Store) => PriceOracle;
  now: () => number;
};

const defaultDeps: CryptoRailDeps = {
  chain: (store) => chainForNetwork(settlementNetwork(store)),
  oracle: (store) => oracleForMode(store.mode === "live" ? "live" : "test"),
  now: Date.now,
};

type StoredLeg = { merchant: string; coin_type: string; amount: string };

export const legsOf = (row: Pick<CryptoPayment, "legs">): PaymentLeg[] =>
  (row.legs as StoredLeg[]).map((l) => ({
    merchant: l.merchant,
    coinType: l.coin_type,
    amount: BigInt(l.amount),
  }));

/** The readable quote a payment-intent returns (integers as decimal strings, never floats). */
export const quoteToWire = (prepared: Pick<PreparedPayment, "quote" | "expiresAtMs">) => ({
  mode: prepared.quote.mode,
  currency: prepared.quote.currency,
  total: Number(prepared.quote.totalMinor),
  legs: prepared.quote.legs.map((leg) => ({
    coin_type: leg.coinType,
    symbol: leg.symbol,
    decimals: leg.decimals,
    amount: leg.amount.toString(),
    fiat_amount: Number(leg.fiatMinor),
    rate: {
      usd_price: leg.usdPrice.price.toString(),
      expo: leg.usdPrice.expo,
      source: leg.pegged ? `${leg.usdPrice.source} (pegged 1:1)` : leg.usdPrice.source,
      published_at: new Date(leg.usdPrice.publishTimeMs).toISOString(),
    },
  })),
  gas_reserve: { coin_type: "0x2::sui::SUI", amount: prepared.quote.gasReserve.toString() },
  ...(prepared.quote.fx
    ? {
        fx: {
          usd_per_unit: prepared.quote.fx.price.toString(),
          expo: prepared.quote.fx.expo,
          source: prepared.quote.fx.source,
        },
      }
    : {}),
  expires_at: new Date(prepared.expiresAtMs).toISOString(),
});

/** crypto_payments' columns as Prisma's CryptoPayment names them, for the statements sent through the adapter. */
const CRYPTO_PAYMENT_COLUMNS = `prepared_digest AS "preparedDigest", checkout_id AS "checkoutId", store_id AS "storeId",
  buyer_address AS "buyerAddress", transaction_bytes AS "transactionBytes", legs, quote, amount, currency,
  prepared_at AS "preparedAt", expires_at AS "expiresAt", submitted_digest AS "submittedDigest",
  settled_digest AS "settledDigest", transaction_digest AS "transactionDigest", group_id AS "groupId",
  created_at AS "createdAt"`;

/**
 * A prepared payment by its digest: read two or three times in every crypto flow (the completion's choice of the
 * prepare, the rail's settle), so sent through the driver adapter (lib/config/sql.ts); the record Prisma's client
 * reads.
 */
export const findPrepared = async (preparedDigest: string): Promise<CryptoPayment | null> => {
  const [row] = await query<CryptoPayment>(
    statementOf(`SELECT ${CRYPTO_PAYMENT_COLUMNS} FROM crypto_payments WHERE prepared_digest = $1`, [
      preparedDigest,
    ]),
  );
  return row ?? null;
};

/** Money as owed back: per coin, what arrived for the merchant. */
const amountsOf = (network: ReturnType<typeof settlementNetwork>, legs: readonly LegCheck[]) =>
  legs
    .filter((l) => l.received > 0n)
    .map((l) => {
      const coin = findCoinByType(network, l.coinType);
      return {
        coin_type: l.coinType,
        symbol: coin?.symbol ?? null,
        decimals: coin?.decimals ?? null,
        amount: l.received.toString(),
      };
    });

/**
 * Records crypto money owed back to the buyer (one record per payment and checkout: seeing the same payment
 * again records nothing more). Returns the record's id.
 */
export const recordOwedBack = async (
  db: Db,
  input: {
    store: Store;
    checkoutId: string;
    buyerAddress: string;
    paymentDigest: string;
    amounts: { coin_type: string; symbol: string | null; decimals: number | null; amount: string }[];
    reason: string;
  },
): Promise<string> => {
  await db.cryptoOwedBack.createMany({
    data: [
      {
        id: newId("owedBack"),
        storeId: input.store.id,
        checkoutId: input.checkoutId,
        buyerAddress: input.buyerAddress,
        paymentDigest: input.paymentDigest,
        amounts: input.amounts,
        reason: input.reason,
      },
    ],
    skipDuplicates: true,
  });
  const row = await db.cryptoOwedBack.findUniqueOrThrow({
    where: {
      paymentDigest_checkoutId: { paymentDigest: input.paymentDigest, checkoutId: input.checkoutId },
    },
    select: { id: true },
  });
  return row.id;
};

/**
 * Everything the transaction moved to the expected merchants, in every coin (net balance changes): a payment that
 * cannot pay is owed back in full, also in coins the prepared legs did not name (a wallet that paid the newer
 * prepare's SUI where the older one expected USDC). Falls back to the legs as checked when the node cannot answer.
 */
const arrivedAtMerchants = async (
  chain: ChainPort,
  digest: string,
  legs: readonly LegCheck[],
): Promise<LegCheck[]> => {
  const merchants = new Set(legs.map((l) => normalizeAddress(l.merchant) ?? l.merchant));
  let tx: Awaited<ReturnType<ChainPort["getTransaction"]>> = null;
  try {
    tx = await chain.getTransaction(digest);
  } catch {
    return [...legs];
  }
  if (!tx) return [...legs];
  const byKey = new Map<string, LegCheck>();
  for (const change of tx.balanceChanges) {
    const merchant = normalizeAddress(change.address) ?? change.address;
    if (!merchants.has(merchant) || change.amount <= 0n) continue;
    const key = `${merchant} ${change.coinType}`;
    const seen = byKey.get(key);
    byKey.set(key, {
      merchant,
      coinType: change.coinType,
      amount: 0n,
      received: (seen?.received ?? 0n) + change.amount,
    });
  }
  return [...byKey.values()];
};

/**
 * A payment that landed after its quote window pays only if what arrived still covers each leg's fiat value at the
 * oracle's rates now (SUI.md §2): a coin that fell in the meantime leaves the merchant short, and that money is
 * owed back instead. A coin that cannot be priced now does not cover.
 */
const coversAtCurrentRates = async (
  store: Store,
  row: CryptoPayment,
  legs: readonly LegCheck[],
  deps: CryptoRailDeps,
): Promise<boolean> => {
  const quoted = ((row.quote as { legs?: { coin_type: string; fiat_amount: number }[] }).legs ?? []).map(
    (l) => ({ coinType: l.coin_type, fiat: BigInt(l.fiat_amount) }),
  );
  const oracle = deps.oracle(store);
  const network = settlementNetwork(store);
  for (const leg of legs) {
    const fiat = quoted.find((q) => isSameCoinType(q.coinType, leg.coinType))?.fiat;
    if (fiat === undefined) return false;
    const needed = await unitsAtCurrentRate(oracle, network, leg.coinType, fiat, row.currency);
    if (needed === null || leg.received < needed) return false;
  }
  return true;
};

const expectedOf = (row: CryptoPayment) => ({
  buyer: row.buyerAddress,
  legs: legsOf(row),
  preparedAtMs: row.preparedAt.getTime(),
  expiresAtMs: row.expiresAt.getTime(),
  preparedDigest: transactionDigestOf(row),
});

/** The digest of the transaction a prepared payment's wallet signs (a combined share names its group's). */
export const transactionDigestOf = (
  row: Pick<CryptoPayment, "preparedDigest" | "transactionDigest">,
): string => row.transactionDigest ?? row.preparedDigest;

/** Who claims a digest for this prepared payment: its combined group, or the prepare itself. */
const claimantOf = (row: Pick<CryptoPayment, "preparedDigest" | "groupId">): string =>
  row.groupId ?? row.preparedDigest;

/**
 * The claimant a digest belongs to by construction: a transaction we built belongs to its prepare or its
 * combined group, whoever hands it over first (SUI.md §4 rule 5: a digest of group A never pays a checkout of
 * group B, even before group A's checkouts claimed it). Null for a digest we did not build (a re-gassed twin).
 */
const builtFor = async (_db: Db, digest: string): Promise<string | null> => {
  const [group] = await query<{ id: string }>(
    sql`SELECT id FROM crypto_payment_groups WHERE transaction_digest = ${digest}`,
  );
  if (group) return group.id;
  const single = await findPrepared(digest);
  return single ? claimantOf(single) : null;
};

/**
 * Claims `digest` as the payment of this prepared payment. `claimed`: it is (now or already) this prepare's
 * settlement; `other_checkout`: the digest belongs to another prepared payment or combined group; `already_paid`:
 * this prepare was settled by another digest first (the new one is a second payment).
 * A digest has one claimant (crypto_digest_claims): a single prepare, or a combined group whose checkouts each
 * claim it once (settled_digest + checkout_id unique). Sent through the driver adapter: every crypto completion
 * claims its digest.
 */
const claimDigest = async (
  db: Db,
  row: CryptoPayment,
  digest: string,
): Promise<"claimed" | "other_checkout" | "already_paid"> => {
  const claimant = claimantOf(row);
  let written: { claimant: string | null } | undefined;
  if (digest === row.preparedDigest) {
    // the prepare's own bytes (the common case): their builder is this prepare unless a combined group has the
    // digest, so the group's check and the claim are one statement, which claims only when no other group has it
    const [answer] = await query<{ groupId: string | null; claimant: string | null }>(sql`
      WITH grp AS (SELECT id FROM crypto_payment_groups WHERE transaction_digest = ${digest}),
      claimed AS (
        INSERT INTO crypto_digest_claims (digest, claimant, created_at)
        SELECT ${digest}, ${claimant}, ${new Date()} WHERE NOT EXISTS (SELECT FROM grp WHERE id <> ${claimant})
        ON CONFLICT DO NOTHING
        RETURNING claimant)
      SELECT (SELECT id FROM grp) AS "groupId", (SELECT claimant FROM claimed) AS claimant`);
    if (answer?.groupId && answer.groupId !== claimant) return "other_checkout";
    written = answer?.claimant ? { claimant: answer.claimant } : undefined;
  } else {
    const owner = await builtFor(db, digest);
    if (owner !== null && owner !== claimant) return "other_checkout";
    // the claim written now answers itself; one written before (a retry, a racing claimant) is read
    [written] = await query<{ claimant: string }>(sql`
      INSERT INTO crypto_digest_claims (digest, claimant, created_at) VALUES (${digest}, ${claimant}, ${new Date()})
      ON CONFLICT DO NOTHING
      RETURNING claimant`);
  }
  const claim =
    written ??
    (
      await query<{ claimant: string }>(
        sql`SELECT claimant FROM crypto_digest_claims WHERE digest = ${digest}`,
      )
    )[0];
  if (claim?.claimant !== claimant) return "other_checkout";
  try {
    const count = await execute(sql`
      UPDATE crypto_payments SET settled_digest = ${digest}
      WHERE prepared_digest = ${row.preparedDigest} AND settled_digest IS NULL`);
    if (count === 1) return "claimed";
  } catch (error) {
    // another prepare of this checkout holds the digest already (it cannot be one of this claimant's)
    if (isUniqueViolation(error)) return "other_checkout";
    throw error;
  }
  const now = await findPrepared(row.preparedDigest);
  return now?.settledDigest === digest ? "claimed" : "already_paid";
};

const describe = (outcome: VerifyOutcome): string => {
  switch (outcome.kind) {
    case "failed":
      return `transaction ${outcome.digest} failed on chain (${outcome.error}); only gas was spent`;
    case "wrong_sender":
      return `transaction ${outcome.digest} was sent by ${outcome.sender}, not by the checkout's buyer`;
    case "too_old":
      return `transaction ${outcome.digest} is older than the prepared payment: an earlier transfer cannot pay it`;
    case "short_leg":
      return `transaction ${outcome.digest} paid the merchant less than the prepared amount`;
    case "late":
      return `transaction ${outcome.digest} landed after the quote expired and no longer covers the total`;
    default:
      return `transaction ${outcome.digest}: ${outcome.kind}`;
  }
};

/**
 * Judges a digest for one prepared payment and records what it means (the claim, money owed back, a digest to
 * judge again). The rail's settle and retrieve both end here.
 */
export const judgeDigest = async (
  db: Db,
  store: Store,
  row: CryptoPayment,
  digest: string,
  deps: CryptoRailDeps = defaultDeps,
): Promise<AttemptOutcome> => {
  const ref = row.preparedDigest;
  const chain = deps.chain(store);
  const outcome = await verifyDigest(chain, digest, expectedOf(row));
  const network = settlementNetwork(store);
  const owe = async (legs: readonly LegCheck[], reason: string) =>
    recordOwedBack(db, {
      store,
      checkoutId: row.checkoutId,
      buyerAddress: row.buyerAddress,
      paymentDigest: digest,
      amounts: amountsOf(network, await arrivedAtMerchants(chain, digest, legs)),
      reason,
    });
  switch (outcome.kind) {
    case "pending":
    case "unavailable":
      await db.cryptoPayment.updateMany({
        where: { preparedDigest: ref, settledDigest: null },
        data: { submittedDigest: digest },
      });
      return { kind: "processing", paymentRef: ref, submitted: digest };
    case "failed":
    case "wrong_sender":
    case "too_old":
      return { kind: "declined", paymentRef: ref, reason: describe(outcome) };
    case "short_leg": {
      const owedId = await owe(outcome.legs, describe(outcome));
      return {
        kind: "declined",
        paymentRef: ref,
        reason: `${describe(outcome)}; what arrived is recorded as owed back to the buyer (${owedId})`,
      };
    }
    case "late":
      if (!outcome.covered || !(await coversAtCurrentRates(store, row, outcome.legs, deps))) {
        const owedId = await owe(outcome.legs, describe(outcome));
        return {
          kind: "declined",
          paymentRef: ref,
          reason: `${describe(outcome)}; what arrived is recorded as owed back to the buyer (${owedId})`,
        };
      }
      break;
    case "paid":
      break;
  }
  const claim = await claimDigest(db, row, digest);
  if (claim === "claimed") return { kind: "succeeded", paymentRef: ref };
  if (claim === "other_checkout") {
    return {
      kind: "declined",
      paymentRef: ref,
      reason: `transaction ${digest} belongs to another checkout's payment (or another combined payment): a transaction pays one checkout, or the checkouts of its own combined payment, each once`,
    };
  }
  // this prepared payment was already paid by another transaction: this one is a second payment
  const owedId = await owe(outcome.legs, `a second payment: the prepared payment was already paid`);
  return {
    kind: "declined",
    paymentRef: ref,
    reason: `the payment was already made by another transaction; ${digest} is recorded as owed back to the buyer (${owedId})`,
  };
};

/**
 * The gas budget of a checkout's payment: GAS_BUDGET plus up to 0.001 SUI derived from the checkout id and the
 * prepare's number.
 * Two checkouts of one buyer at one merchant for the same amount would otherwise get byte-identical transactions
 * (same coins, same gas, same legs) and so one digest: one payment for two checkouts. The budget is a cap, not the
 * fee, so the buyer pays nothing for the difference.
 */
const gasBudgetFor = (checkoutId: string, attempt: number): bigint => {
  const hash = createHash("sha256").update(`${checkoutId}#${attempt}`).digest();
  return GAS_BUDGET + BigInt(hash.readUInt32BE(0) % 1_000_000);
};

/** A prepared payment as stored, with the attempt's provider reference (its digest). */
export type StartedPrepare = { paymentRef: string; row: CryptoPayment };

/**
 * Prepares a payment for the checkout and stores it (the attempt's provider reference is its digest). Answers the
 * stored row too, which the prepare's answer is made of (read back otherwise).
 */
const prepare = async (request: StartAttemptRequest, deps: CryptoRailDeps): Promise<StartedPrepare> => {
  const { store, payer } = request;
  if (!payer) throw new AppError("invalid_request", "A crypto payment needs the buyer's wallet address");
  if (!store.suiRecipient) {
    throw new AppError("rail_not_available", `Store ${store.slug} has no payout address for svc.crypto`);
  }
  // every payment-intent prepares its own bytes, also for a coin prepared before: the newest prepare is the
  // current attempt (a retry with the same idempotency key gets the stored answer instead). Its statements go
  // through the driver adapter (lib/config/sql.ts): every crypto flow sends them.
  const [counted] = await query<{ earlier: number }>(
    sql`SELECT CAST(count(*) AS int) AS earlier FROM crypto_payments WHERE checkout_id = ${request.checkoutId}`,
  );
  const earlier = counted?.earlier ?? 0;
  for (let attempt = earlier * 3; attempt < earlier * 3 + 3; attempt++) {
    const prepared = await preparePayment(
      {
        chain: deps.chain(store),
        oracle: deps.oracle(store),
        now: deps.now,
      },
      {
        buyer: payer.address,
        merchant: store.suiRecipient,
        acceptedCoins: storedCoinSymbols(store.acceptedCoins),
        requestedCoin: payer.coin ?? null,
        totalMinor: BigInt(request.amount),
        currency: request.currency,
        gasReserve: gasBudgetFor(request.checkoutId, attempt),
      },
    );
    const digest = prepared.transaction.digest;
    const legs = prepared.transaction.legs.map((l) => ({
      merchant: l.merchant,
      coin_type: l.coinType,
      amount: l.amount.toString(),
    }));
    // two payment-intents of this checkout racing (same count, same coins) build the same bytes: one payment
    const [inserted] = await query<CryptoPayment>(
      statementOf(
        `INSERT INTO crypto_payments (prepared_digest, checkout_id, store_id, buyer_address, transaction_bytes, legs,
           quote, amount, currency, prepared_at, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, CAST($6 AS jsonb), CAST($7 AS jsonb), $8, $9, $10, $11, $12)
         ON CONFLICT DO NOTHING
         RETURNING ${CRYPTO_PAYMENT_COLUMNS}`,
        [
          digest,
          request.checkoutId,
          store.id,
          prepared.expected.buyer,
          prepared.transaction.bytes,
          jsonParam(legs),
          jsonParam(quoteToWire(prepared)),
          request.amount,
          request.currency,
          new Date(prepared.preparedAtMs),
          new Date(prepared.expiresAtMs),
          new Date(),
        ],
      ),
    );
    const row = inserted ?? (await findPrepared(digest));
    if (row?.checkoutId === request.checkoutId) return { paymentRef: digest, row };
    // the bytes collide with another checkout's prepared payment: build again with another gas budget
  }
  throw new AppError(
    "payment_provider_error",
    "Could not build a payment transaction of this checkout's own; try payment-intent again",
    { details: { provider: "sui", reason: "digest_collision" } },
  );
};

const digestOf = (credential: RailCredential): string => {
  if (credential.type !== "transaction_digest") {
    throw new AppError("invalid_request", "svc.crypto takes a transaction digest as its credential token");
  }
  return credential.digest;
};

const rowOrThrow = async (_db: Db, ref: string): Promise<CryptoPayment> => {
  const row = await findPrepared(ref);
  if (!row) throw new AppError("not_found", `No prepared crypto payment ${ref}`);
  return row;
};

/**
 * The crypto rail: the rail port, plus what the crypto calls use without the port's round trips — `prepare` (start
 * with the stored row) and `settlePrepared` (settle a prepared payment the caller has read already).
 */
export type CryptoRail = PaymentRail & {
  prepare: (request: StartAttemptRequest) => Promise<StartedPrepare>;
  settlePrepared: (store: Store, row: CryptoPayment, digest: string) => Promise<AttemptOutcome>;
};

export const createCryptoRail = (deps: CryptoRailDeps = defaultDeps): CryptoRail => ({
  id: RAIL_HANDLER_IDS.crypto,
  prepare: (request) => prepare(request, deps),
  start: async (request) => ({
    kind: "requires_action",
    paymentRef: (await prepare(request, deps)).paymentRef,
  }),
  settlePrepared: async (store, row, digest) => judgeDigest(await getDb(), store, row, digest, deps),
  settle: async (store, paymentRef, credential) => {
    const db = await getDb();
    return judgeDigest(db, store, await rowOrThrow(db, paymentRef), digestOf(credential), deps);
  },
  retrieve: async (store, paymentRef) => {
    const db = await getDb();
    const row = await rowOrThrow(db, paymentRef);
    // a settled payment stays settled; else the digest the agent handed over, else our own bytes
    const digest = row.settledDigest ?? row.submittedDigest ?? transactionDigestOf(row);
    const outcome = await judgeDigest(db, store, row, digest, deps);
    // our own bytes not on the chain (yet): the buyer still has to sign them
    if (outcome.kind === "processing" && digest === transactionDigestOf(row) && !row.submittedDigest) {
      return { kind: "requires_action", paymentRef };
    }
    return outcome;
  },
  cancel: async () => ({
    kind: "not_cancelable",
    reason: "a prepared transaction can still be signed and submitted; the sweep watches it",
  }),
  refund: async (store, paymentRef, idempotencyKey, amount) => {
    const db = await getDb();
    const row = await rowOrThrow(db, paymentRef);
    const digest = row.settledDigest ?? transactionDigestOf(row);
    const legs = legsOf(row);
    // a partial refund gives back the same share of every coin, rounded up in the buyer's favour
    const share = (units: bigint) =>
      amount === undefined || amount >= row.amount
        ? units
        : (units * BigInt(amount) + BigInt(row.amount) - 1n) / BigInt(row.amount);
    const network = settlementNetwork(store);
    const owedId = await recordOwedBack(db, {
      store,
      checkoutId: row.checkoutId,
      buyerAddress: row.buyerAddress,
      paymentDigest: amount === undefined ? digest : `${digest}#refund-${idempotencyKey}`,
      amounts: amountsOf(
        network,
        legs.map((l) => ({ ...l, received: share(l.amount) })),
      ),
      reason:
        amount === undefined
          ? "a full refund of this payment"
          : `a refund of ${amount} (minor units, ${row.currency})`,
    });
    return { kind: "succeeded", refundRef: owedId };
  },
  buyerStep: async (_store, paymentRef) => {
    const db = await getDb();
    const row = await rowOrThrow(db, paymentRef);
    return { kind: "sign_transaction", transactionBytes: row.transactionBytes };
  },
});

export const cryptoRail: CryptoRail = createCryptoRail();
