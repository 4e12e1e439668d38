import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { authenticateAccount, createAccount } from "@/lib/accounts/accounts";
import { AppError } from "@/lib/core/errors";
import { withRequestSource } from "@/lib/rate-limit/request-source";

import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Wrong merchant passwords are throttled like every failed authentication: per email from any address (a spray at
// one account) and per source address across emails (one guesser, many accounts); once a budget is spent the
// answer is rate_limited before the password is checked, even a right one, and other accounts and addresses are
// unaffected.

const PER_EMAIL = 3;
const PER_ADDRESS = 5;

before(async () => {
  process.env.RATE_LIMIT_CREDENTIAL_FAILURES = String(PER_EMAIL);
  process.env.RATE_LIMIT_AUTH_FAILURES = String(PER_ADDRESS);
  await prepareTestDatabase();
});
after(closeTestDatabase);

const PASSWORD = "the right passphrase";
const account = async (name: string) => {
  const email = `${name}-${process.pid}-${Date.now()}@example.com`;
  await createAccount({ name, email, password: PASSWORD });
  return email;
};
const isRateLimited = (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, "rate_limited");
  assert.match(error.message, /Too many failed authentications/);
  assert.equal(typeof error.details?.retry_after, "number");
  return true;
};

test("per email: after the quota of wrong passwords, even the right one waits; another account is unaffected", async () => {
  const [target, other] = [await account("target"), await account("other")];
  for (let i = 0; i < PER_EMAIL; i++) {
    assert.equal(await authenticateAccount({ email: target, password: `guess ${i} passphrase` }), null);
  }
  await assert.rejects(authenticateAccount({ email: target, password: PASSWORD }), isRateLimited);
  assert.equal((await authenticateAccount({ email: other, password: PASSWORD }))?.email, other);
});

test("per source address: one address guessing across accounts is stopped; another address is not", async () => {
  const emails = await Promise.all(["a", "b", "c"].map((n) => account(`spray-${n}`)));
  await withRequestSource("198.18.7.1", async () => {
    for (let i = 0; i < PER_ADDRESS; i++) {
      assert.equal(
        await authenticateAccount({ email: emails[i % 3]!, password: `wrong ${i} passphrase` }),
        null,
      );
    }
    await assert.rejects(authenticateAccount({ email: emails[2]!, password: PASSWORD }), isRateLimited);
  });
  await withRequestSource("198.18.7.2", async () => {
    assert.equal((await authenticateAccount({ email: emails[2]!, password: PASSWORD }))?.email, emails[2]);
  });
});
