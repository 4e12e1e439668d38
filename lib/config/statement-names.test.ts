import assert from "node:assert/strict";
import { test } from "node:test";

import { PLAN_PER_CALL, statementNamer } from "./statement-names";

test("one stable name per SQL text, distinct texts distinct names", () => {
  const name = statementNamer(10);
  const a = name({ sql: "SELECT 1" });
  const b = name({ sql: "SELECT 2" });
  assert.ok(a && b);
  assert.notEqual(a, b);
  assert.equal(name({ sql: "SELECT 1" }), a);
  assert.equal(name({ sql: "SELECT 2" }), b);
});

test("past the limit a new text goes unnamed (not prepared) and the known ones keep their names", () => {
  const name = statementNamer(2);
  const first = name({ sql: "q1" });
  name({ sql: "q2" });
  assert.equal(name({ sql: "q3" }), undefined);
  assert.equal(name({ sql: "q3" }), undefined, "still unnamed: nothing was kept for it");
  assert.equal(name({ sql: "q1" }), first);
});

test("limit 0 names nothing", () => {
  const name = statementNamer(0);
  assert.equal(name({ sql: "SELECT 1" }), undefined);
});

test("a statement that plans per call is never named, and takes no place in the bound", () => {
  const name = statementNamer(1);
  const search = `${PLAN_PER_CALL}\nSELECT 1 FROM catalog_search_documents WHERE document @@ $1`;
  assert.equal(name({ sql: search }), undefined);
  assert.equal(name({ sql: search }), undefined);
  assert.ok(name({ sql: "SELECT 1" }), "the one place is still free");
});
