import assert from "node:assert/strict";
import { test } from "node:test";

import { statementNamer } from "./statement-names";

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
