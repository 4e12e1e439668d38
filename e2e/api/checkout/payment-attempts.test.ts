import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { sql } from "@/lib/config/sql";
import { findAttempt, recordAttempt, type AttemptState } from "@/lib/payments/attempts";

import { statementsOf } from "../../helpers/sql-statements";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Payment attempts as data (DECISIONS B12), at the level of the record itself: at most one current attempt per
// checkout whoever records at once, and a payment that already succeeded stays current against a newcomer that
// has not. The completion, the crypto prepares and the finisher all stand on these two rules.

before(prepareTestDatabase);
after(closeTestDatabase);

const record = async (checkoutId: string, state: AttemptState, likelyNew = false) => {
  const db = await getDb();
  return recordAttempt(db, {
    checkoutId,
    storeId: "store_attempts",
    rail: "svc.card",
    providerRef: `pi_${randomUUID()}`,
    amount: 1500,
    currency: "USD",
    state,
    likelyNew,
  });
};

const rowsOf = async (checkoutId: string) =>
  (await getDb()).paymentAttempt.findMany({ where: { checkoutId }, orderBy: { createdAt: "asc" } });

/** The attempt as Prisma's client reads it back (the recorder answers what it wrote, every column). */
const storedAttempt = async (id: string) =>
  (await getDb()).paymentAttempt.findUniqueOrThrow({ where: { id } });

test("a new payment becomes current; the open one it replaces stops being current and is returned to be canceled", async () => {
  const checkoutId = `chk_${randomUUID()}`;
  const first = await record(checkoutId, "requires_action", true);
  assert.equal(first.attempt.isCurrent, true);
  assert.deepEqual(first.superseded, []);
  assert.deepEqual(first.attempt, await storedAttempt(first.attempt.id), "the recorded row, as stored");
  // the read by provider reference (webhooks, the finisher) answers Prisma's record, in its store only
  const ref = first.attempt.providerRef!;
  assert.deepEqual(await findAttempt(ref), await storedAttempt(first.attempt.id));
  assert.deepEqual(await findAttempt(ref, "store_attempts"), await storedAttempt(first.attempt.id));
  assert.equal(await findAttempt(ref, "store_other"), null);
  assert.equal(await findAttempt(`${ref}x`), null);
  const second = await record(checkoutId, "pending", true);
  assert.equal(second.attempt.isCurrent, true);
  assert.deepEqual(second.attempt, await storedAttempt(second.attempt.id));
  // the replaced attempt is handed back as it was until now (current), with its row's other columns as stored
  assert.deepEqual(second.superseded, [{ ...(await storedAttempt(first.attempt.id)), isCurrent: true }]);
  assert.deepEqual(
    second.superseded.map((a) => a.providerRef),
    [first.attempt.providerRef],
    "the replaced open attempt is handed back to be canceled",
  );
  const rows = await rowsOf(checkoutId);
  assert.deepEqual(
    rows.map((r) => [r.providerRef, r.isCurrent]),
    [
      [first.attempt.providerRef, false],
      [second.attempt.providerRef, true],
    ],
  );
});

test("a payment that succeeded stays current against a newcomer that has not; a newcomer that succeeded replaces it", async () => {
  const checkoutId = `chk_${randomUUID()}`;
  const paid = await record(checkoutId, "succeeded", true);
  const late = await record(checkoutId, "pending", true);
  assert.equal(late.attempt.isCurrent, false, "the newcomer is recorded not current");
  assert.deepEqual(late.attempt, await storedAttempt(late.attempt.id));
  assert.equal((await storedAttempt(paid.attempt.id)).isCurrent, true);
  assert.deepEqual(
    late.superseded.map((a) => a.providerRef),
    [late.attempt.providerRef],
    "the newcomer itself is handed back to be canceled",
  );
  let rows = await rowsOf(checkoutId);
  assert.deepEqual(
    rows.filter((r) => r.isCurrent).map((r) => r.providerRef),
    [paid.attempt.providerRef],
    "the paid attempt is still the current one",
  );
  const alsoPaid = await record(checkoutId, "succeeded", true);
  assert.equal(alsoPaid.attempt.isCurrent, true);
  assert.deepEqual(alsoPaid.superseded, [], "a succeeded attempt is not handed back to be canceled");
  rows = await rowsOf(checkoutId);
  assert.deepEqual(
    rows.filter((r) => r.isCurrent).map((r) => r.providerRef),
    [alsoPaid.attempt.providerRef],
  );
});

test("attempts recorded at once (8 runs of 5): exactly one current per checkout; a succeeded one stays current against all of them", async () => {
  for (let run = 0; run < 8; run++) {
    const checkoutId = `chk_${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => record(checkoutId, "pending", true)));
    let rows = await rowsOf(checkoutId);
    assert.equal(rows.length, 5);
    assert.equal(rows.filter((r) => r.isCurrent).length, 1, `run ${run}: one current attempt`);
    // every attempt that stopped being current was handed back to be canceled by the call that replaced it
    const handedBack = new Set(results.flatMap((r) => r.superseded.map((a) => a.providerRef)));
    for (const row of rows.filter((r) => !r.isCurrent)) assert.ok(handedBack.has(row.providerRef));

    const other = `chk_${randomUUID()}`;
    const paid = await record(other, "succeeded", true);
    await Promise.all(Array.from({ length: 4 }, () => record(other, "requires_action", true)));
    rows = await rowsOf(other);
    assert.deepEqual(
      rows.filter((r) => r.isCurrent).map((r) => r.providerRef),
      [paid.attempt.providerRef],
      `run ${run}: the paid attempt stays the one current`,
    );
  }
});

test("the caller's write goes in the statement that records a new attempt, and on its own when that one fails", async () => {
  const db = await getDb();
  const checkoutId = `chk_${randomUUID()}`;
  await db.cardPayment.create({
    data: { checkoutId, storeId: "store_attempts", status: "pending", amount: 1500, currency: "USD" },
  });
  const note = (ref: string) => sql`
    UPDATE card_payments SET status = 'succeeded', payment_intent_id = ${ref}, updated_at = ${new Date()}
    WHERE checkout_id = ${checkoutId} AND attempt = 1`;
  const recordWith = (ref: string) =>
    recordAttempt(db, {
      checkoutId,
      storeId: "store_attempts",
      rail: "svc.card",
      providerRef: ref,
      amount: 1500,
      currency: "USD",
      state: "succeeded",
      likelyNew: true,
      alongside: note(ref),
    });
  const card = () => db.cardPayment.findUniqueOrThrow({ where: { checkoutId } });

  // a new payment: one statement writes both
  const ref = `pi_${randomUUID()}`;
  const first = await statementsOf(() => recordWith(ref));
  assert.equal(first.sql.length, 1, first.sql.join("\n"));
  assert.deepEqual([(await card()).status, (await card()).paymentIntentId], ["succeeded", ref]);
  assert.equal(first.result.attempt.providerRef, ref);
  assert.equal(first.result.attempt.isCurrent, true);

  // the same payment again (a replay): the straight statement fails on the reference and wrote nothing; the
  // caller's write is then sent on its own, and the known attempt is found, not recorded twice
  await db.cardPayment.update({ where: { checkoutId }, data: { status: "pending", paymentIntentId: null } });
  const replay = await statementsOf(() => recordWith(ref));
  assert.ok(replay.sql.length > 1, replay.sql.join("\n"));
  assert.match(replay.sql[1]!, /^\s*UPDATE card_payments/, replay.sql.join("\n"));
  assert.deepEqual([(await card()).status, (await card()).paymentIntentId], ["succeeded", ref]);
  assert.equal(replay.result.attempt.id, first.result.attempt.id);
  assert.equal((await rowsOf(checkoutId)).length, 1);
});
