import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { chargeSettled, whileCharging } from "./charges-under-way";

const gate = () => {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
};

test("chargeSettled: nothing under way for the checkout answers at once that it did not wait", async () => {
  assert.deepEqual(await chargeSettled("chk_none", 10_000), { waited: false, placed: [] });
  const g = gate();
  const charging = whileCharging("chk_a", () => g.promise);
  assert.equal(
    (await chargeSettled("chk_b", 10_000)).waited,
    false,
    "another checkout's charge is not waited for",
  );
  g.open();
  await charging;
});

test("chargeSettled waits until the charge settles, whether it succeeds or throws, then forgets it", async () => {
  for (const ending of ["succeeds", "throws"] as const) {
    const g = gate();
    const charging = whileCharging("chk_c", () => g.promise.then(() => "answer"));
    let waited: boolean | undefined;
    const waiting = chargeSettled("chk_c", 10_000).then((w) => (waited = w.waited));
    await sleep(30);
    assert.equal(waited, undefined, `${ending}: still waiting while the charge is under way`);
    if (ending === "succeeds") g.open();
    else g.fail(new Error("provider down"));
    await waiting;
    assert.equal(waited, true);
    if (ending === "succeeds") assert.equal(await charging, "answer", "the charge's own result is untouched");
    else await assert.rejects(charging, /provider down/);
    assert.equal((await chargeSettled("chk_c", 10_000)).waited, false, `${ending}: forgotten once settled`);
  }
});

test("chargeSettled waits for every charge of the checkout under way, and gives up at its bound", async () => {
  const first = gate();
  const second = gate();
  const charges = [whileCharging("chk_d", () => first.promise), whileCharging("chk_d", () => second.promise)];
  let waited = false;
  const waiting = chargeSettled("chk_d", 10_000).then(() => (waited = true));
  first.open();
  await sleep(30);
  assert.equal(waited, false, "the second charge is still under way");
  second.open();
  await waiting;
  await Promise.all(charges);

  const stuck = gate();
  const charging = whileCharging("chk_e", () => stuck.promise);
  const started = performance.now();
  assert.deepEqual(
    await chargeSettled("chk_e", 50),
    { waited: true, placed: [] },
    "gave up: placed nothing yet",
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 45, `gave up at the bound, not before (${elapsed.toFixed(0)} ms)`);
  stuck.open();
  await charging;
});

test("chargeSettled tells the payments the charges it waited for placed the order with, even one that then threw", async () => {
  const first = gate();
  const second = gate();
  const charges = [
    whileCharging("chk_f", async (placed) => {
      await first.promise;
      placed({ storeId: "store_1", paymentRef: "pi_1" });
    }),
    whileCharging("chk_f", async (placed) => {
      await second.promise;
      placed({ storeId: "store_1", paymentRef: "pi_2" });
      throw new Error("the answer could not be rendered");
    }),
  ];
  const waiting = chargeSettled("chk_f", 10_000);
  first.open();
  second.open();
  assert.deepEqual(await waiting, {
    waited: true,
    placed: [
      { storeId: "store_1", paymentRef: "pi_1" },
      { storeId: "store_1", paymentRef: "pi_2" },
    ],
  });
  await charges[0];
  await assert.rejects(charges[1]!, /could not be rendered/);
  // a charge that placed nothing (declined, a buyer step) tells nothing
  const declined = whileCharging("chk_g", async () => "declined");
  assert.deepEqual(await chargeSettled("chk_g", 10_000), { waited: true, placed: [] });
  await declined;
});
