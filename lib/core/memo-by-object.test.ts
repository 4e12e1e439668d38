import assert from "node:assert/strict";
import { test } from "node:test";

import { memoByObject } from "./memo-by-object";

test("computes once per object, again for another object (even an equal one)", () => {
  let runs = 0;
  const derive = memoByObject((jwk: { d: string }) => {
    runs++;
    return `key(${jwk.d})`;
  });
  const a = { d: "x" };
  assert.equal(derive(a), "key(x)");
  assert.equal(derive(a), "key(x)");
  assert.equal(runs, 1);
  assert.equal(derive({ d: "x" }), "key(x)");
  assert.equal(runs, 2);
});

test("a rejected computation is forgotten, so the next call tries again", async () => {
  let runs = 0;
  const derive = memoByObject(async (_: object) => {
    runs++;
    if (runs === 1) throw new Error("bad key");
    return "ok";
  });
  const k = {};
  await assert.rejects(derive(k), /bad key/);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await derive(k), "ok");
  assert.equal(runs, 2);
});
