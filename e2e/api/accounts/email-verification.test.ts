import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  confirmPasswordReset,
  createAccount,
  getAccount,
  requestPasswordReset,
} from "@/lib/accounts/accounts";
import {
  RESEND_INTERVAL_MS,
  sendVerificationMail,
  VERIFY_TTL_MS,
  verifyEmail,
} from "@/lib/accounts/email-verification";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { toAppError } from "@/lib/core/errors";
import { capturedMailFor, mailPageAvailableIn } from "@/lib/mail/captured-mail";

import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// An account's email is verified by a mailed link (single use, expiring, only its hash stored) before the mail
// page shows it any other mail: anyone can sign up with anyone's address, and on an instance without SMTP the
// page would otherwise show that address's order confirmations to whoever opened the account.

before(prepareTestDatabase);
after(closeTestDatabase);

const BASE = "http://127.0.0.1:3000";
const PASSWORD = "correct horse battery staple";
let n = 0;
const address = () => `verify-${process.pid}-${++n}-${Date.now()}@example.com`;

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (thrown) {
    const error = toAppError(thrown);
    return { code: error.code, path: error.path, message: error.message };
  }
  assert.fail("expected a refusal");
};

/** The tokens of the verification links mailed to `to`, oldest first. */
const linksTo = async (to: string): Promise<string[]> =>
  (
    await (
      await getDb()
    ).capturedMail.findMany({
      where: { to, subject: { contains: "Verify your email" } },
      orderBy: { createdAt: "asc" },
    })
  ).map((m) => /\/admin\/verify-email\?token=([A-Za-z0-9_-]{43})/.exec(m.text)![1]!);

/** An order confirmation to a buyer's address, as the order worker captures it. */
const confirmationTo = async (to: string) =>
  (await getDb()).capturedMail.create({
    data: {
      id: newId("capturedMail"),
      to,
      subject: "Your order ord_x at Corner Shop",
      text: "2 × Blue mug, total $24.00: http://127.0.0.1:3000/account/orders/ord_x",
    },
  });

describe("the mail page's reader", () => {
  test("an unverified account opened with a buyer's address sees only its own verification link", async () => {
    const buyer = address();
    await confirmationTo(buyer);
    const impostor = await createAccount({ name: "Not the buyer", email: buyer, password: PASSWORD });
    assert.equal(impostor.emailVerifiedAt, null);
    const seen = await capturedMailFor(impostor);
    assert.equal(seen.scope, "own_verification");
    assert.deepEqual(
      seen.mails.map((m) => m.subject),
      ["Verify your email for Agent Commerce Service"],
    );
    assert.ok(!seen.mails.some((m) => m.text.includes("Blue mug")));

    // whoever holds the link (the address's owner) verifies it; then the account reads the address's mail
    const [token] = await linksTo(buyer);
    await verifyEmail({ token });
    const verified = (await getAccount(impostor.id))!;
    assert.ok(verified.emailVerifiedAt);
    const after = await capturedMailFor(verified);
    assert.equal(after.scope, "own_address");
    assert.equal(after.mails.length, 2);
    assert.ok(after.mails.every((m) => m.to === buyer));
  });

  test("another account's verification link is not shown to an unverified account", async () => {
    const first = await createAccount({ name: "First", email: address(), password: PASSWORD });
    const second = await createAccount({ name: "Second", email: address(), password: PASSWORD });
    const seen = await capturedMailFor(second);
    assert.equal(seen.mails.length, 1);
    assert.equal(seen.mails[0]!.to, second.email);
    assert.ok(!seen.mails.some((m) => m.to === first.email));
  });

  test("the operator reads every message", async () => {
    const buyer = address();
    await confirmationTo(buyer);
    const operator = await createAccount(
      { name: "Op", email: address(), password: PASSWORD },
      { isOperator: true },
    );
    const seen = await capturedMailFor(operator, 1000);
    assert.equal(seen.scope, "all");
    assert.ok(seen.mails.some((m) => m.to === buyer));
  });

  test("the page exists only without SMTP and outside production", () => {
    assert.equal(mailPageAvailableIn({ NODE_ENV: "development" }), true);
    // the embedded demo runs the built app with NODE_ENV=production but no DATABASE_URL
    assert.equal(mailPageAvailableIn({ NODE_ENV: "production" }), true);
    assert.equal(
      mailPageAvailableIn({ NODE_ENV: "production", DATABASE_URL: "postgresql://db.example/acs" }),
      false,
    );
    assert.equal(
      mailPageAvailableIn({ NODE_ENV: "development", SMTP_URL: "smtp://mail.example.com" }),
      false,
    );
  });
});

describe("the verification link", () => {
  test("works once; a newer link closes the older; an expired or unknown one is refused; nothing changes", async () => {
    const email = address();
    const t0 = new Date();
    const account = await createAccount({ name: "Once", email, password: PASSWORD }, { now: t0 });
    const [first] = await linksTo(email);

    // too early for another link, then a second one
    const early = await refusal(
      sendVerificationMail(account, { baseUrl: BASE, now: new Date(t0.getTime() + 1000) }),
    );
    assert.equal(early.code, "rate_limited");
    await sendVerificationMail(account, { baseUrl: BASE, now: new Date(t0.getTime() + RESEND_INTERVAL_MS) });
    const [, second] = await linksTo(email);
    assert.ok(second && second !== first);

    // an expired link: refused, the account stays unverified
    const late = await refusal(
      verifyEmail({ token: first }, { now: new Date(t0.getTime() + VERIFY_TTL_MS + 1) }),
    );
    assert.equal(late.code, "invalid_request");
    assert.equal(late.path, "$.token");
    assert.match(late.message, /expired/);
    const unknown = await refusal(verifyEmail({ token: "A".repeat(43) }));
    assert.match(unknown.message, /not valid/);
    const garbage = await refusal(verifyEmail({ token: "short" }));
    assert.equal(garbage.code, "invalid_request");
    assert.equal((await getAccount(account.id))!.emailVerifiedAt, null);

    const verifiedAt = new Date(t0.getTime() + 2 * RESEND_INTERVAL_MS);
    assert.deepEqual(await verifyEmail({ token: second }, { now: verifiedAt }), { email });
    assert.equal((await getAccount(account.id))!.emailVerifiedAt?.getTime(), verifiedAt.getTime());

    // the same link again, and the older one it closed
    for (const token of [second, first]) {
      const reused = await refusal(verifyEmail({ token }, { now: new Date(verifiedAt.getTime() + 1) }));
      assert.equal(reused.code, "invalid_request");
      assert.match(reused.message, /already used/);
    }
    const again = await refusal(
      sendVerificationMail((await getAccount(account.id))!, { baseUrl: BASE, now: new Date() }),
    );
    assert.equal(again.code, "conflict");
  });

  test("a password reset link, which reached the same inbox, verifies the account", async () => {
    const email = address();
    const account = await createAccount({ name: "Reset", email, password: PASSWORD });
    await requestPasswordReset({ email }, { baseUrl: BASE });
    const mail = await (
      await getDb()
    ).capturedMail.findFirstOrThrow({ where: { to: email, subject: { contains: "Reset" } } });
    const token = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
    const changed = await confirmPasswordReset({ token, password: "another long passphrase" });
    assert.ok(changed.emailVerifiedAt);
    assert.ok((await getAccount(account.id))!.emailVerifiedAt);
  });
});
