import assert from "node:assert/strict";
import { test } from "node:test";

import { runAdminCaptured } from "../../helpers/run-admin";

// The admin CLI explains itself: --help (or no command) prints every command and exits 0, `<command> --help` prints
// that command's usage, and an unknown command lists the commands and exits 2 — before touching any store.

const run = (...argv: string[]) => runAdminCaptured(...argv);

test("--help, help and no command print every command and exit 0", async () => {
  for (const argv of [["--help"], ["help"], ["-h"], []]) {
    const { code, out } = await run(...argv);
    assert.equal(code, 0, argv.join(" "));
    for (const command of ["create-api-key", "set-stripe-keys", "refund-order", "reindex"]) {
      assert.match(out, new RegExp(`^  ${command}`, "m"), `${argv.join(" ")}: ${command}`);
    }
  }
});

test("<command> --help prints that command's usage only, exit 0", async () => {
  const { code, out } = await run("refund-order", "--help");
  assert.equal(code, 0);
  assert.match(out, /^Usage: npm run admin -- refund-order --store <slug> --order <order id>/);
  assert.doesNotMatch(out, /create-api-key/);
});

test("an unknown command names itself and lists the commands, exit 2", async () => {
  const { code, err } = await run("make-coffee");
  assert.equal(code, 2);
  assert.match(err, /Unknown command "make-coffee"/);
  assert.match(err, /^  create-api-key/m);
});
