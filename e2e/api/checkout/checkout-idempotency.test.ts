import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { JWK } from "jose";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";
import { requestHash, scopeHash } from "@/lib/idempotency/request-hash";
import { IDEMPOTENCY_RETENTION_MS } from "@/lib/idempotency/with-idempotency";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { mcpCall, rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout, type ErrorEnvelope } from "./helpers";

// create_checkout and update_checkout store their answer with their own write (idempotency "in-write",
// lib/idempotency/with-idempotency.ts): no claim before them. These are the idempotency rules on that path, with
// the races and the faults that could break them: one write per key, the same answer replayed byte for byte, a
// reused key refused with nothing changed, and a write that fails leaving neither the write nor an answer.

let store: Store;
let variantId: string;
let key: { id: string; key: string };
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };

const sessionsPath = () => `/s/${store.slug}/checkout-sessions`;
const lines = (quantity = 1) => ({ line_items: [{ item: { id: variantId }, quantity }] });
const headersFor = (idem: string) => ({ "x-api-key": key.key, "idempotency-key": idem });
const create = (idem: string, body: unknown = lines()) =>
  rest<Checkout>("POST", sessionsPath(), { headers: headersFor(idem), body });
const update = (id: string, idem: string, body: unknown = { buyer: BUYER, shipping_address: SEED_ADDRESS }) =>
  rest<Checkout>("PUT", `${sessionsPath()}/${id}`, { headers: headersFor(idem), body });

const sessions = async () => (await getDb()).checkoutSession.count({ where: { storeId: store.id } });
const records = async (idem: string) =>
  (await getDb()).idempotencyRecord.findMany({ where: { key: idem, storeSlug: store.slug } });
const stored = async (id: string) =>
  (await getDb()).checkoutSession.findUniqueOrThrow({
    where: { id },
    select: { version: true, status: true, buyer: true, updatedAt: true },
  });

/** A trigger that refuses this store's writes to `table` (other test files share PostgreSQL's database). */
const refuseWrites = async (
  table: string,
  on: "INSERT" | "UPDATE",
  storeColumn: string,
  storeValue: string,
) => {
  const db = await getDb();
  const name = `refuse_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await db.$executeRawUnsafe(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'write refused by the test'; END $$`,
  );
  await db.$executeRawUnsafe(
    `CREATE TRIGGER ${name} BEFORE ${on} ON ${table} FOR EACH ROW WHEN (NEW.${storeColumn} = '${storeValue}') EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await db.$executeRawUnsafe(`DROP TRIGGER ${name} ON ${table}`);
    await db.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
  };
};

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 1250, inventory: 50 }] })).variants[0]!.id;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  key = await seedPlatformKey(["purchase:complete"]);
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
});
after(closeTestDatabase);

describe("create_checkout: the answer stored with the session", () => {
  test("POST /s/:slug/checkout-sessions — the same key and body replays byte for byte; one session, one record", async () => {
    const idem = randomUUID();
    const before = await sessions();
    const first = await create(idem);
    assert.equal(first.status, 201, first.text);
    const replay = await create(idem);
    assert.equal(replay.status, 201);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(await sessions(), before + 1);
    const [record, ...more] = await records(idem);
    assert.equal(more.length, 0);
    assert.equal(record?.state, "done");
    assert.equal(record?.responseStatus, 201);
    assert.equal(record?.responseBody, first.text);
  });

  test("POST /s/:slug/checkout-sessions — the same key with another body → 409 idempotency_key_reused, no session", async () => {
    const idem = randomUUID();
    const first = await create(idem);
    assert.equal(first.status, 201, first.text);
    const before = await sessions();
    const reused = await create(idem, lines(2));
    assert.equal(reused.status, 409, reused.text);
    assert.equal((reused.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_key_reused");
    assert.equal(await sessions(), before);
    assert.equal((await records(idem)).length, 1);
  });

  test("POST /s/:slug/checkout-sessions — an invalid body under a used key → 409 idempotency_key_reused; under a fresh key → 400", async () => {
    const idem = randomUUID();
    const first = await create(idem);
    assert.equal(first.status, 201, first.text);
    const before = await sessions();
    const invalid = { line_items: [{ item: { id: variantId }, quantity: 0 }] };
    const reused = await create(idem, invalid);
    assert.equal(reused.status, 409, reused.text);
    assert.equal((reused.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_key_reused");
    const fresh = await create(randomUUID(), invalid);
    assert.equal(fresh.status, 400, fresh.text);
    assert.equal((fresh.body as unknown as ErrorEnvelope).messages[0]?.code, "invalid_request");
    assert.equal(await sessions(), before, "nothing stored by either");
    assert.equal((await records(idem)).length, 1);
  });

  test("create_checkout over MCP — an invalid argument under a used key → idempotency_key_reused; nothing stored", async () => {
    const idem = randomUUID();
    const call = (checkout: unknown) =>
      mcpCall<{ result?: { structuredContent?: { id?: string } }; error?: { data?: { code?: string } } }>(
        `/s/${store.slug}/mcp`,
        "create_checkout",
        { checkout },
        { headers: { "x-api-key": key.key }, idempotencyKey: idem },
      );
    const first = await call(lines());
    assert.ok(first.body.result?.structuredContent?.id, first.text);
    const before = await sessions();
    const reused = await call({ line_items: [{ item: { id: variantId }, quantity: 0 }] });
    assert.equal(reused.body.error?.data?.code, "idempotency_key_reused", reused.text);
    assert.equal(await sessions(), before);
  });

  test("POST /s/:slug/checkout-sessions — one key sent six times at once: one session, every answer that session's", async () => {
    const idem = randomUUID();
    const before = await sessions();
    const answers = await Promise.all(Array.from({ length: 6 }, () => create(idem)));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1, answers.map((a) => a.text).join("\n"));
    for (const answer of answers) {
      if (answer.status === 201) assert.equal(answer.text, created[0]!.text);
      else {
        assert.equal(answer.status, 409, answer.text);
        assert.equal((answer.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_in_flight");
      }
    }
    assert.equal(await sessions(), before + 1);
    assert.equal((await records(idem)).length, 1);
  });

  test("POST /s/:slug/checkout-sessions — a write that fails stores neither the session nor an answer; the key then runs afresh", async () => {
    const idem = randomUUID();
    const before = await sessions();
    // the fault strikes inside the one statement, after the session's row went in: the whole statement undoes
    const allow = await refuseWrites("checkout_line_items", "INSERT", "variant_id", variantId);
    let failed;
    try {
      failed = await create(idem);
    } finally {
      await allow();
    }
    assert.equal(failed.status, 500, failed.text);
    assert.equal(await sessions(), before);
    assert.deepEqual(await records(idem), []);
    const retried = await create(idem);
    assert.equal(retried.status, 201, retried.text);
    assert.equal(await sessions(), before + 1);
    assert.equal((await create(idem)).text, retried.text);
  });

  test("POST /s/:slug/checkout-sessions — a refusal (nothing sellable) is stored and replayed; no session", async () => {
    const idem = randomUUID();
    const before = await sessions();
    const body = { line_items: [{ item: { id: "var_missing" }, quantity: 1 }] };
    const first = await create(idem, body);
    assert.equal(first.status, 200, first.text);
    assert.equal((first.body as unknown as ErrorEnvelope).ucp.status, "error");
    const replay = await create(idem, body);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(await sessions(), before);
  });

  test("POST /s/:slug/checkout-sessions — a key still in flight → 409 idempotency_in_flight; an abandoned one runs", async () => {
    const seed = async (idem: string, lockMs: number) => {
      const now = Date.now();
      const principalId = `key:${key.id}`;
      await (
        await getDb()
      ).idempotencyRecord.create({
        data: {
          id: newId("idempotency"),
          scopeHash: scopeHash({
            principalId,
            storeSlug: store.slug,
            operation: "create_checkout",
            key: idem,
          }),
          principalId,
          storeSlug: store.slug,
          operation: "create_checkout",
          key: idem,
          requestHash: requestHash("create_checkout", lines()),
          lockedUntil: new Date(now + lockMs),
          expiresAt: new Date(now + IDEMPOTENCY_RETENTION_MS),
        },
      });
    };
    const before = await sessions();
    const busy = randomUUID();
    await seed(busy, 30_000);
    const inFlight = await create(busy);
    assert.equal(inFlight.status, 409, inFlight.text);
    assert.equal((inFlight.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_in_flight");
    assert.ok(Number(inFlight.headers.get("retry-after")) >= 1);
    assert.equal(await sessions(), before);

    const abandoned = randomUUID();
    await seed(abandoned, -1_000);
    const ran = await create(abandoned);
    assert.equal(ran.status, 201, ran.text);
    assert.equal(await sessions(), before + 1);
    assert.equal((await create(abandoned)).text, ran.text);
  });
});

describe("update_checkout: the answer stored with the session's write", () => {
  const newCheckout = async () => {
    const created = await create(randomUUID());
    assert.equal(created.status, 201, created.text);
    return created.body.id;
  };

  test("PUT /s/:slug/checkout-sessions/:id — replay byte for byte, the session written once; another body → 409, nothing written", async () => {
    const id = await newCheckout();
    const idem = randomUUID();
    const first = await update(id, idem);
    assert.equal(first.status, 200, first.text);
    const afterFirst = await stored(id);
    const replay = await update(id, idem);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    const reused = await update(id, idem, { notes: "another body" });
    assert.equal(reused.status, 409, reused.text);
    assert.equal((reused.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_key_reused");
    assert.deepEqual(await stored(id), afterFirst);
  });

  test("PUT /s/:slug/checkout-sessions/:id — one key sent six times at once: one write, one answer", async () => {
    const id = await newCheckout();
    const version = (await stored(id)).version;
    const idem = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => update(id, idem)));
    const done = answers.filter((a) => a.status === 200);
    assert.ok(done.length >= 1, answers.map((a) => a.text).join("\n"));
    for (const answer of answers) {
      if (answer.status === 200) assert.equal(answer.text, done[0]!.text);
      else assert.equal((answer.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_in_flight");
    }
    assert.equal((await stored(id)).version, version + 1, "the session was written once");
    assert.equal((await records(idem)).length, 1);
  });

  test("PUT /s/:slug/checkout-sessions/:id — a write that fails changes nothing and stores no answer; the key then runs", async () => {
    const id = await newCheckout();
    const before = await stored(id);
    const idem = randomUUID();
    const allow = await refuseWrites("checkout_sessions", "UPDATE", "id", id);
    let failed;
    try {
      failed = await update(id, idem);
    } finally {
      await allow();
    }
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(await stored(id), before);
    assert.deepEqual(await records(idem), []);
    const retried = await update(id, idem);
    assert.equal(retried.status, 200, retried.text);
    assert.equal((await stored(id)).version, before.version + 1);
  });

  test("PUT /s/:slug/checkout-sessions/:id — new lines (a transaction of their own) claim the key first: replayed, written once", async () => {
    const id = await newCheckout();
    const idem = randomUUID();
    const body = lines(3);
    const answers = await Promise.all(Array.from({ length: 3 }, () => update(id, idem, body)));
    const done = answers.filter((a) => a.status === 200);
    assert.ok(done.length >= 1, answers.map((a) => a.text).join("\n"));
    for (const answer of done) assert.equal(answer.text, done[0]!.text);
    assert.equal(done[0]!.body.line_items[0]?.quantity, 3);
    const replay = await update(id, idem, body);
    assert.equal(replay.text, done[0]!.text);
    const [record, ...more] = await records(idem);
    assert.equal(more.length, 0);
    assert.equal(record?.state, "done");
  });

  test("PUT /s/:slug/checkout-sessions/:id — a refusal (unknown session) is stored and replayed", async () => {
    const idem = randomUUID();
    const first = await update("chk_missing", idem);
    assert.equal((first.body as unknown as ErrorEnvelope).messages[0]?.code, "not_found", first.text);
    const replay = await update("chk_missing", idem);
    assert.equal(replay.status, first.status);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(replay.text, first.text);
    assert.equal((await records(idem)).length, 1);
  });
});

describe("complete_checkout: a platform's card purchase claims its key with the hold", () => {
  const agentHeaders = (idem: string) => ({ ...headersFor(idem), "ucp-agent": `profile="${signedProfile}"` });
  const readyCheckout = async () => {
    const created = await rest<Checkout>("POST", sessionsPath(), {
      headers: agentHeaders(randomUUID()),
      body: { ...lines(), buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" },
    });
    assert.equal(created.body.status, "ready_for_complete", created.text);
    return created.body;
  };
  const complete = (checkout: Checkout, idem: string, body: unknown) =>
    rest<Checkout>("POST", `${sessionsPath()}/${checkout.id}/complete`, {
      headers: agentHeaders(idem),
      body,
    });
  const orders = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });
  const charges = async (checkoutId: string) =>
    (await stripeSandbox()).paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId);

  test("POST …/complete — the same key replays byte for byte; another body → 409; one order, one charge", async () => {
    const checkout = await readyCheckout();
    const body = await cardCompletionBody(checkout, store.slug, agentKey, "pm_card_visa");
    const idem = randomUUID();
    const first = await complete(checkout, idem, body);
    assert.equal(first.body.status, "completed", first.text);
    const replay = await complete(checkout, idem, body);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    const reused = await complete(checkout, idem, { ...body, payment: { instruments: [] } });
    assert.equal(reused.status, 409, reused.text);
    assert.equal((reused.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_key_reused");
    assert.equal(await orders(checkout.id), 1);
    assert.equal((await charges(checkout.id)).length, 1);
    const [record, ...more] = await records(idem);
    assert.equal(more.length, 0);
    assert.equal(record?.state, "done");
    assert.equal(record?.responseBody, first.text);
  });

  test("POST …/complete — one key sent four times at once: one order, one charge; every answer the completed checkout or in flight", async () => {
    const checkout = await readyCheckout();
    const body = await cardCompletionBody(checkout, store.slug, agentKey, "pm_card_visa");
    const idem = randomUUID();
    const answers = await Promise.all(Array.from({ length: 4 }, () => complete(checkout, idem, body)));
    const completed = answers.filter((a) => a.body.status === "completed");
    assert.ok(completed.length >= 1, answers.map((a) => a.text).join("\n"));
    for (const answer of answers) {
      if (answer.body.status === "completed") assert.equal(answer.text, completed[0]!.text);
      else {
        assert.equal(answer.status, 409, answer.text);
        assert.equal((answer.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_in_flight");
      }
    }
    assert.equal(await orders(checkout.id), 1);
    assert.equal((await charges(checkout.id)).length, 1);
    assert.equal((await complete(checkout, idem, body)).text, completed[0]!.text);
  });

  test("POST …/complete — a hold that fails claims nothing, charges nothing, changes nothing; the key then completes once", async () => {
    const checkout = await readyCheckout();
    const body = await cardCompletionBody(checkout, store.slug, agentKey, "pm_card_visa");
    const before = await stored(checkout.id);
    const idem = randomUUID();
    const allow = await refuseWrites("checkout_sessions", "UPDATE", "id", checkout.id);
    let failed;
    try {
      failed = await complete(checkout, idem, body);
    } finally {
      await allow();
    }
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(await stored(checkout.id), before);
    assert.deepEqual(await records(idem), []);
    assert.equal((await charges(checkout.id)).length, 0);
    const retried = await complete(checkout, idem, body);
    assert.equal(retried.body.status, "completed", retried.text);
    assert.equal(await orders(checkout.id), 1);
    assert.equal((await charges(checkout.id)).length, 1);
  });

  test("POST …/complete — a fault in the order's transaction after the charge releases the key; the retry places the one order", async () => {
    const checkout = await readyCheckout();
    const body = await cardCompletionBody(checkout, store.slug, agentKey, "pm_card_visa");
    const idem = randomUUID();
    const allow = await refuseWrites("orders", "INSERT", "checkout_id", checkout.id);
    let failed;
    try {
      failed = await complete(checkout, idem, body);
    } finally {
      await allow();
    }
    assert.notEqual(failed.body.status, "completed", failed.text);
    assert.equal(await orders(checkout.id), 0);
    // no record that would replay a success
    for (const record of await records(idem)) assert.doesNotMatch(record.responseBody ?? "", /"completed"/);
    const retried = await complete(checkout, idem, body);
    assert.equal(retried.body.status, "completed", retried.text);
    assert.equal(await orders(checkout.id), 1);
    const succeeded = (await charges(checkout.id)).filter((pi) => pi.status === "succeeded");
    assert.equal(succeeded.length, 1, "charged once");
    assert.equal(succeeded[0]!.amount, retried.body.totals.find((t) => t.type === "total")?.amount);
  });

  test("POST …/complete — a refusal before the hold (a mandate over other terms) is stored and replayed; nothing held or charged", async () => {
    const checkout = await readyCheckout();
    const body = await cardCompletionBody({ ...checkout, totals: [] }, store.slug, agentKey, "pm_card_visa");
    const before = await stored(checkout.id);
    const idem = randomUUID();
    const first = await complete(checkout, idem, body);
    assert.notEqual(first.body.status, "completed", first.text);
    const replay = await complete(checkout, idem, body);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(await stored(checkout.id), before);
    assert.equal((await charges(checkout.id)).length, 0);
  });
});
