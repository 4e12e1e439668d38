import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";

import {
  authenticateAccount,
  confirmPasswordReset,
  createAccount,
  requestPasswordReset,
  RESET_TTL_MS,
} from "@/lib/accounts/accounts";
import { grantStoreRole, storeForAccount, storesOfAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { sendMail } from "@/lib/mail/send-mail";

import { seedStore } from "../../factories";
import { startFakeSmtpServer } from "../../helpers/fake-smtp-server";
import { runAdminCaptured } from "../../helpers/run-admin";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Merchant and developer accounts: sign-up with a validated email and a long enough password (argon2id at rest),
// sign-in that answers the same for an unknown email and a wrong password, a password reset by a single-use,
// short-lived link sent through the mail port (captured without SMTP; over SMTP to a fake server), and who may act
// on which store (owner, staff, operator; nobody else learns the store exists).

before(prepareTestDatabase);
after(closeTestDatabase);

const BASE = "http://127.0.0.1:3000";
let n = 0;
const email = () => `merchant-${process.pid}-${++n}-${Date.now()}@example.com`;
const PASSWORD = "correct horse battery staple";

const refused = (code: string, path: string | undefined, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code);
  assert.equal(error.path, path);
  assert.match(error.message, pattern);
  return true;
};

/** The captured mail to one address but its sign-up verification (the test database is shared: count only our own). */
const mailTo = async (to: string) =>
  (await getDb()).capturedMail.findMany({
    where: { to, verificationFor: null },
    orderBy: { createdAt: "asc" },
  });

const tokenOf = (text: string): string => /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;

describe("sign-up and sign-in", () => {
  test("an account is created with its email normalized and an argon2id hash; sign-in needs the right password", async () => {
    const address = email();
    const account = await createAccount({
      name: " Ada ",
      email: `  ${address.toUpperCase()} `,
      password: PASSWORD,
    });
    assert.deepEqual(
      { ...account, id: "" },
      { id: "", email: address, name: "Ada", isOperator: false, emailVerifiedAt: null },
    );
    const row = await (await getDb()).merchantAccount.findUniqueOrThrow({ where: { id: account.id } });
    assert.match(row.passwordHash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.ok(!row.passwordHash.includes(PASSWORD));
    assert.equal((await authenticateAccount({ email: address, password: PASSWORD }))?.id, account.id);
    assert.equal(
      await authenticateAccount({ email: address.toUpperCase(), password: PASSWORD }).then((a) => a?.id),
      account.id,
    );
    assert.equal(await authenticateAccount({ email: address, password: `${PASSWORD}!` }), null);
    assert.equal(await authenticateAccount({ email: email(), password: PASSWORD }), null, "unknown email");
    assert.equal(await authenticateAccount({ email: "not an email", password: PASSWORD }), null);
  });

  test("bad input names its field; a second account for one email is refused; nothing is stored", async () => {
    const address = email();
    await createAccount({ name: "First", email: address, password: PASSWORD });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ name: "X", email: "nope", password: PASSWORD }, "$.email", /email address/],
      [{ name: "X", email: email(), password: "short" }, "$.password", /at least 12/],
      [{ name: "", email: email(), password: PASSWORD }, "$.name", /Enter your name/],
      [{ name: "X", email: email(), password: PASSWORD, isOperator: true }, "$", /Unrecognized key/i],
      [{ name: "Second", email: address.toUpperCase(), password: PASSWORD }, "$.email", /already exists/],
    ];
    const ours = { where: { name: { in: ["X", "", "Second"] } } };
    const before = await (await getDb()).merchantAccount.count(ours);
    for (const [input, path, pattern] of cases) {
      await assert.rejects(createAccount(input), refused("invalid_request", path, pattern));
    }
    assert.equal(await (await getDb()).merchantAccount.count(ours), before);
  });
});

describe("password reset", () => {
  test("a single-use link by mail sets a new password; other links die; the old password stops working", async () => {
    const address = email();
    const account = await createAccount({ name: "Reset", email: address, password: PASSWORD });
    await requestPasswordReset({ email: address }, { baseUrl: BASE });
    await requestPasswordReset({ email: address }, { baseUrl: BASE });
    const mails = await mailTo(address);
    assert.equal(mails.length, 2);
    assert.match(mails[0]!.text, new RegExp(`${BASE}/admin/reset-password\\?token=`));
    const [first, second] = mails.map((m) => tokenOf(m.text));
    const changed = await confirmPasswordReset({ token: second, password: "a new long passphrase" });
    assert.equal(changed.id, account.id);
    assert.equal(await authenticateAccount({ email: address, password: PASSWORD }), null);
    assert.equal(
      (await authenticateAccount({ email: address, password: "a new long passphrase" }))?.id,
      account.id,
    );
    for (const token of [second, first]) {
      await assert.rejects(
        confirmPasswordReset({ token, password: "yet another passphrase" }),
        refused("invalid_request", "$.token", /used or expired/),
      );
    }
    const row = await (await getDb()).merchantAccount.findUniqueOrThrow({ where: { id: account.id } });
    assert.ok(row.passwordChangedAt.getTime() > row.createdAt.getTime(), "sessions from before end");
  });

  test("an unknown email gets the same answer and no mail; an expired link and a malformed token are refused", async () => {
    const nobody = email();
    await requestPasswordReset({ email: nobody }, { baseUrl: BASE });
    assert.equal((await mailTo(nobody)).length, 0);
    await assert.rejects(
      requestPasswordReset({ email: "x" }, { baseUrl: BASE }),
      refused("invalid_request", "$.email", /email/),
    );

    const address = email();
    await createAccount({ name: "Late", email: address, password: PASSWORD });
    const asked = new Date();
    await requestPasswordReset({ email: address }, { baseUrl: BASE, now: asked });
    const token = tokenOf((await mailTo(address))[0]!.text);
    await assert.rejects(
      confirmPasswordReset(
        { token, password: "a new long passphrase" },
        { now: new Date(asked.getTime() + RESET_TTL_MS + 1) },
      ),
      refused("invalid_request", "$.token", /used or expired/),
    );
    await assert.rejects(
      confirmPasswordReset({ token: "abc", password: "a new long passphrase" }),
      refused("invalid_request", "$.token", /not valid/),
    );
    assert.equal((await authenticateAccount({ email: address, password: PASSWORD }))?.email, address);
  });

  test("one link used twice at once: exactly one use sets the password", async () => {
    const address = email();
    await createAccount({ name: "Race", email: address, password: PASSWORD });
    await requestPasswordReset({ email: address }, { baseUrl: BASE });
    const token = tokenOf((await mailTo(address))[0]!.text);
    const results = await Promise.allSettled(
      ["first long passphrase", "second long passphrase"].map((password) =>
        confirmPasswordReset({ token, password }),
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1, JSON.stringify(results));
    const won = results[0]!.status === "fulfilled" ? "first long passphrase" : "second long passphrase";
    assert.ok(await authenticateAccount({ email: address, password: won }));
  });
});

describe("the mail port over SMTP", () => {
  test("a message reaches an SMTP server (a fake one) with its From, To and text; nothing is captured", async () => {
    const smtp = await startFakeSmtpServer();
    try {
      const to = email();
      const sent = await sendMail(
        { to, subject: "Hello", text: "A line.\nA link: https://example.com/x" },
        { smtpUrl: smtp.url, from: "Shop <shop@example.com>" },
      );
      assert.equal(sent.via, "smtp");
      assert.equal(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0]!.to, [`<${to}>`]);
      assert.match(smtp.received[0]!.from, /shop@example\.com/);
      assert.match(smtp.received[0]!.data, /Subject: Hello/);
      assert.match(smtp.received[0]!.data, /A link: https:\/\/example\.com\/x/);
      assert.equal((await mailTo(to)).length, 0);
    } finally {
      await smtp.close();
    }
  });

  test("a server that cannot be reached is mail_failed, without the URL's credentials in the message", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(
      sendMail(
        { to: "a@example.com", subject: "x", text: "x" },
        { smtpUrl: `smtp://user:s3cret@127.0.0.1:${port}` },
      ),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, "mail_failed");
        assert.ok(!error.message.includes("s3cret"));
        return true;
      },
    );
  });
});

describe("store access", () => {
  test("owner, staff and operator reach the store as far as their role goes; anyone else sees no store", async () => {
    const store = await seedStore();
    const [owner, staff, stranger] = await Promise.all(
      ["Owner", "Staff", "Stranger"].map((name) =>
        createAccount({ name, email: email(), password: PASSWORD }),
      ),
    );
    const operator = await createAccount(
      { name: "Operator", email: email(), password: PASSWORD },
      { isOperator: true },
    );
    await grantStoreRole(owner!.id, store.id, "owner");
    await grantStoreRole(staff!.id, store.id, "staff");
    assert.equal((await storeForAccount(owner!, store.slug, "owner")).role, "owner");
    assert.equal((await storeForAccount(staff!, store.slug, "staff")).role, "staff");
    assert.equal((await storeForAccount(operator, store.slug, "owner")).role, "operator");
    await assert.rejects(
      storeForAccount(staff!, store.slug, "owner"),
      refused("owner_required", undefined, /Only an owner/),
    );
    for (const slug of [store.slug, "no-such-store"]) {
      await assert.rejects(
        storeForAccount(stranger!, slug, "staff"),
        refused("store_not_found", "$.store_slug", /No store with slug/),
      );
    }
    assert.deepEqual(
      (await storesOfAccount(staff!)).map((s) => [s.store.slug, s.role]),
      [[store.slug, "staff"]],
    );
    assert.deepEqual(await storesOfAccount(stranger!), []);
    assert.ok((await storesOfAccount(operator)).some((s) => s.store.id === store.id));
  });
});

describe("admin CLI for accounts", () => {
  const run = (...argv: string[]) => runAdminCaptured(...argv);

  test("grant-store and make-operator change what the account reaches; mail lists the capture for one address", async () => {
    const store = await seedStore();
    const address = email();
    const account = await createAccount({ name: "Cli", email: address, password: PASSWORD });
    assert.deepEqual(await storesOfAccount(account), []);
    assert.equal(
      (await run("grant-store", "--email", address.toUpperCase(), "--store", store.slug, "--role", "staff"))
        .code,
      0,
    );
    assert.deepEqual(
      (await storesOfAccount(account)).map((s) => [s.store.slug, s.role]),
      [[store.slug, "staff"]],
    );
    assert.equal(
      (await run("grant-store", "--email", address, "--store", store.slug)).code,
      0,
      "default owner",
    );
    assert.equal((await storeForAccount(account, store.slug, "owner")).role, "owner");
    await assert.rejects(
      run("grant-store", "--email", address, "--store", store.slug, "--role", "boss"),
      /owner or staff/,
    );
    await assert.rejects(
      run("grant-store", "--email", email(), "--store", store.slug),
      /No account with email/,
    );
    await assert.rejects(run("make-operator", "--email", email()), /No account with email/);
    assert.equal((await run("make-operator", "--email", address)).code, 0);
    assert.equal(
      (await (await getDb()).merchantAccount.findUniqueOrThrow({ where: { id: account.id } })).isOperator,
      true,
    );

    await requestPasswordReset({ email: address }, { baseUrl: BASE });
    const listed = await run("mail", "--to", address, "--json");
    assert.equal(listed.code, 0);
    const mail = JSON.parse(listed.out) as { to: string; text: string }[];
    // newest first: the reset, then the verification link sign-up sent
    assert.deepEqual(
      mail.map((m) => m.to),
      [address, address],
    );
    assert.match(mail[0]!.text, /reset-password\?token=/);
    assert.match(mail[1]!.text, /verify-email\?token=/);
  });
});
