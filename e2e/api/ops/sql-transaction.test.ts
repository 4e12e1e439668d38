import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { getDb, isUniqueViolation } from "@/lib/config/db";
import { queryWith, sql, transaction } from "@/lib/config/sql";

import { statementsOf, statementsOfFailure } from "../../helpers/sql-statements";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A transaction sent through the driver adapter without Prisma's client (lib/config/sql.ts `transaction`), on both
// databases: what it wrote is there after it returns and gone after it throws, its BEGIN and its COMMIT or
// ROLLBACK are observed once each (Server-Timing, the statement budgets), a unique violation in it is known as
// one, and a failed transaction gives its connection back.

before(prepareTestDatabase);
after(closeTestDatabase);

/** Each statement's first three words: enough to tell them apart here. */
const heads = (sql: string[]) => sql.map((s) => s.trim().split(/\s+/).slice(0, 3).join(" "));

/** A payment_attempts row: a table with a unique column and no foreign key, enough to write and collide. */
const insertAttempt = (providerRef: string, checkoutId = `chk_${randomUUID()}`) => {
  const now = new Date();
  return sql`
    INSERT INTO payment_attempts
      (id, checkout_id, store_id, rail, provider_ref, amount, currency, state, is_current, created_at, updated_at)
    VALUES (${`pay_${randomUUID()}`}, ${checkoutId}, 'store_tx', 'svc.card', ${providerRef}, 1500, 'USD',
            'pending', false, ${now}, ${now})
    RETURNING provider_ref`;
};

const stored = async (providerRef: string) =>
  (await getDb()).paymentAttempt.count({ where: { providerRef } });

test("a transaction that returns is committed: its writes are there, BEGIN and COMMIT observed once", async () => {
  const refs = [`pi_${randomUUID()}`, `pi_${randomUUID()}`];
  const sent = await statementsOf(() =>
    transaction(async (tx) => {
      const rows = [];
      for (const ref of refs)
        rows.push(...(await queryWith<{ provider_ref: string }>(tx, insertAttempt(ref))));
      return rows.map((r) => r.provider_ref);
    }),
  );
  assert.deepEqual(sent.result, refs, "the work's answer is returned");
  assert.deepEqual(heads(sent.sql), [
    "BEGIN",
    "INSERT INTO payment_attempts",
    "INSERT INTO payment_attempts",
    "COMMIT",
  ]);
  for (const ref of refs) assert.equal(await stored(ref), 1);
});

test("a transaction that throws is rolled back: nothing it wrote stays, the error is thrown on, ROLLBACK observed once", async () => {
  const ref = `pi_${randomUUID()}`;
  const failure = new Error("the work failed after its write");
  const sent = await statementsOfFailure(() =>
    transaction(async (tx) => {
      await queryWith(tx, insertAttempt(ref));
      throw failure;
    }),
  );
  assert.equal(sent.error, failure);
  assert.deepEqual(heads(sent.sql), ["BEGIN", "INSERT INTO payment_attempts", "ROLLBACK"]);
  assert.equal(await stored(ref), 0, "the write before the failure is rolled back");
});

test("a unique violation inside is known as one and rolls back the transaction's earlier writes; 15 of them in a row leave the connections usable", async () => {
  const taken = `pi_${randomUUID()}`;
  await transaction((tx) => queryWith(tx, insertAttempt(taken)));
  // more failed transactions than the pool has connections (10 on PostgreSQL): a connection kept by a failed one
  // would leave the last ones waiting forever
  for (let i = 0; i < 15; i++) {
    const before = `pi_${randomUUID()}`;
    const sent = await statementsOfFailure(() =>
      transaction(async (tx) => {
        await queryWith(tx, insertAttempt(before));
        await queryWith(tx, insertAttempt(taken));
      }),
    );
    assert.ok(isUniqueViolation(sent.error), `round ${i}: ${String(sent.error)}`);
    assert.equal(heads(sent.sql).at(-1), "ROLLBACK");
    assert.equal(await stored(before), 0, `round ${i}: the write before the violation is rolled back`);
  }
  assert.equal(await stored(taken), 1);
  const after = `pi_${randomUUID()}`;
  await transaction((tx) => queryWith(tx, insertAttempt(after)));
  assert.equal(await stored(after), 1, "a transaction after the failed ones commits");
});

test("transactions at once each commit their own writes (12 together)", async () => {
  const refs = Array.from({ length: 12 }, () => `pi_${randomUUID()}`);
  const answers = await Promise.all(
    refs.map((ref) =>
      transaction(async (tx) => {
        const [row] = await queryWith<{ provider_ref: string }>(tx, insertAttempt(ref));
        // a read in the same transaction sees its own uncommitted write
        const [seen] = await queryWith<{ n: bigint }>(
          tx,
          sql`SELECT count(*) AS n FROM payment_attempts WHERE provider_ref = ${ref}`,
        );
        return { ref: row!.provider_ref, seen: seen!.n };
      }),
    ),
  );
  assert.deepEqual(
    answers,
    refs.map((ref) => ({ ref, seen: 1n })),
  );
  for (const ref of refs) assert.equal(await stored(ref), 1);
});
