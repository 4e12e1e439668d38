import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

import { runAdmin } from "../../../scripts/lib/admin-commands";
import { seedStore } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// `npm run admin -- make-store-live <slug>`: the one way a store leaves test mode, and only once each enabled rail
// has what it needs (card: Stripe secret + publishable keys; crypto: a Sui payout address). A refusal names
// everything missing and leaves the store in test mode.

before(prepareTestDatabase);
after(closeTestDatabase);

const modeOf = async (id: string) => (await (await getDb()).store.findUniqueOrThrow({ where: { id } })).mode;

const refusal = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, "invalid_request");
  assert.match(error.message, pattern);
  return true;
};

describe("make-store-live", () => {
  test("a card store without Stripe keys is refused, naming both keys; it stays in test mode", async () => {
    const store = await seedStore();
    await assert.rejects(
      runAdmin(["make-store-live", store.slug]),
      refusal(/cannot go live yet.*Stripe secret key.*Stripe publishable key.*stays in test mode/),
    );
    assert.equal(await modeOf(store.id), "test");
  });

  test("with only the secret key it names the publishable key alone", async () => {
    const store = await seedStore();
    await runAdmin(["set-stripe-keys", "--store", store.slug, "--secret-key", "sk_live_abcdefgh12345678"]);
    await assert.rejects(runAdmin(["make-store-live", store.slug]), (error: unknown) => {
      refusal(/Stripe publishable key/)(error);
      assert.doesNotMatch((error as Error).message, /secret key/);
      return true;
    });
    assert.equal(await modeOf(store.id), "test");
  });

  test("Stripe test keys do not make a store live: a live store charges real cards", async () => {
    const store = await seedStore();
    await runAdmin([
      "set-stripe-keys",
      "--store",
      store.slug,
      "--secret-key",
      "sk_test_abcdefgh12345678",
      "--publishable-key",
      "pk_test_abcdefgh12345678",
    ]);
    await assert.rejects(
      runAdmin(["make-store-live", store.slug]),
      refusal(
        /live Stripe secret key \(it has a test key\).*live Stripe publishable key \(it has a test key\)/,
      ),
    );
    assert.equal(await modeOf(store.id), "test");
  });

  test("a crypto store without a Sui payout address is refused, naming it", async () => {
    const store = await seedStore({ cardEnabled: false, cryptoEnabled: true, suiRecipient: null });
    await assert.rejects(runAdmin(["make-store-live", store.slug]), refusal(/Sui payout address/));
    assert.equal(await modeOf(store.id), "test");
  });

  test("a store with no rail at all is refused", async () => {
    const store = await seedStore({ cardEnabled: false, cryptoEnabled: false });
    await assert.rejects(runAdmin(["make-store-live", store.slug]), refusal(/payment rail/));
  });

  test("a card store with both keys goes live (positional slug or --store); running it again is harmless", async () => {
    const store = await seedStore();
    await runAdmin([
      "set-stripe-keys",
      "--store",
      store.slug,
      "--secret-key",
      "sk_live_abcdefgh12345678",
      "--publishable-key",
      "pk_live_abcdefgh12345678",
    ]);
    assert.equal(await runAdmin(["make-store-live", store.slug]), 0);
    assert.equal(await modeOf(store.id), "live");
    assert.equal(await runAdmin(["make-store-live", "--store", store.slug]), 0);
    assert.equal(await modeOf(store.id), "live");
  });

  test("a crypto store with its payout address goes live", async () => {
    const store = await seedStore({
      cardEnabled: false,
      cryptoEnabled: true,
      suiRecipient: `0x${"ab".repeat(32)}`,
    });
    assert.equal(await runAdmin(["make-store-live", store.slug]), 0);
    assert.equal(await modeOf(store.id), "live");
  });

  test("an unknown store → store_not_found", async () => {
    await assert.rejects(runAdmin(["make-store-live", "no-such-store"]), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, "store_not_found");
      return true;
    });
  });
});
