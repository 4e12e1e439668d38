import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { adminErrorMessage } from "../../../scripts/lib/admin-commands";
import { runAdminCaptured } from "../../helpers/run-admin";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A command's validation error names the flag the operator typed, not the operation's input path: the CLI entry
// prints adminErrorMessage of what runAdmin threw.

before(prepareTestDatabase);
after(closeTestDatabase);

const failureOf = async (...argv: string[]): Promise<string> => {
  try {
    await runAdminCaptured(...argv);
  } catch (thrown) {
    return adminErrorMessage(thrown);
  }
  assert.fail(`${argv.join(" ")} succeeded`);
};

test("create-api-key without --name → '--name is required'", async () => {
  assert.equal(await failureOf("create-api-key"), "--name is required");
  assert.equal(await failureOf("create-api-key", "--name", "  "), "--name is required");
});

test("a bad value names its flag: --permissions with an unknown permission", async () => {
  const message = await failureOf("create-api-key", "--name", "ci", "--permissions", "orders:write");
  assert.match(message, /^--permissions: /);
  assert.doesNotMatch(message, /\$\./);
});
