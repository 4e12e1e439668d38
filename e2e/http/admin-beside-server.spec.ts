import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect, test } from "@playwright/test";

import { adminSocketPath } from "../../scripts/lib/admin-socket";
import { findFreePort } from "../../scripts/lib/free-port";
import { runAdminProcess, startServedApp, type ServedApp } from "../../scripts/lib/served-app";

// The admin CLI beside a running server on the embedded database, as a new user tries it: `npm start` in one
// terminal, `npm run admin -- create-api-key …` in another. The server holds the PGlite data dir, so the CLI runs
// its command inside the server (its admin socket) instead of opening the dir a second time; the key it prints is
// the one the server accepts at once. Every line of a command's answer arrives (the human form of create-api-key
// prints the key on its third line), errors and usage come back the same way; the socket is gone after shutdown.

const STORE = "summit-trail-outfitters";

test.describe.configure({ mode: "serial" });

let dir = "";
let service: ServedApp | undefined;

test.afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill("SIGTERM");
    await service.exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("npm run admin works while npm start serves on the embedded database", async () => {
  test.setTimeout(420_000);
  dir = mkdtempSync(path.join(tmpdir(), "acs-admin-beside-"));
  const env: Record<string, string | undefined> = {
    PGLITE_DIR: path.join(dir, "pglite"),
    DEMO_KEY_FILE: path.join(dir, "demo-platform-key.json"),
    DATABASE_URL: undefined,
    STRIPE_SANDBOX_URL: undefined,
    WEBHOOK_WORKER: "off",
    NODE_ENV: undefined,
  };
  // set-up (migrate, seed) and serve, as `npm start` does
  service = await startServedApp({ port: await findFreePort(), env });
  const socket = adminSocketPath(env.PGLITE_DIR!);
  expect(existsSync(socket)).toBe(true);

  const created = await runAdminProcess(["create-api-key", "--name", "beside", "--json"], env);
  expect(created.code, created.output).toBe(0);
  expect(created.output).not.toContain("Aborted");
  const key = (JSON.parse(created.output.trim().split("\n").pop()!) as { key: string; id: string }).key;

  // the server knows the key at once: a keyed read of a checkout that does not exist is the business outcome
  // not_found (HTTP 200, UCP error status), where an unknown key is a 401
  const read = async (apiKey: string) =>
    fetch(`${service!.baseUrl}/s/${STORE}/checkout-sessions/chk_missing`, {
      headers: {
        "request-id": randomUUID(),
        "ucp-agent": `profile="${service!.baseUrl}/demo/agent/.well-known/ucp"`,
        "x-api-key": apiKey,
      },
    });
  const known = await read(key);
  const body = (await known.json()) as { messages: { code: string }[] };
  expect(known.status, JSON.stringify(body)).toBe(200);
  expect(body.messages[0]?.code).toBe("not_found");
  expect((await read(`${key.slice(0, -4)}abcd`)).status).toBe(401);

  // the human form, every line of it: the secret is on the third of four lines, shown this once
  const human = await runAdminProcess(["create-api-key", "--name", "beside-human"], env);
  expect(human.code, human.output).toBe(0);
  const printed = new RegExp(
    '^Created platform key key_\\S+ "beside-human"\nPermissions: \\(none\\)\n\n {2}X-API-Key: (\\S+)\n\n' +
      "Store it now: it is shown only once \\(only its SHA-256 hash is kept\\)\\.$",
    "m",
  ).exec(human.output)?.[1];
  expect(printed, human.output).toBeDefined();
  const printedRead = await read(printed!);
  expect(printedRead.status).toBe(200);
  expect(((await printedRead.json()) as { messages: { code: string }[] }).messages[0]?.code).toBe(
    "not_found",
  );
  // a table, many lines written at once
  const table = await runAdminProcess(["list-api-keys"], env);
  expect(table.code, table.output).toBe(0);
  expect(table.output).toMatch(/│.*beside-human.*│/);
  expect(table.output.trimEnd().split("\n").at(-1)).toMatch(/^└/);

  const listed = await runAdminProcess(["list-api-keys", "--json"], env);
  expect(listed.code, listed.output).toBe(0);
  expect(
    (JSON.parse(listed.output.trim().split("\n").pop()!) as { name: string }[]).map((k) => k.name),
  ).toContain("beside");
  // a refused command keeps its exit code and message; an unknown one its usage
  const refused = await runAdminProcess(["revoke-api-key", "--id", "key_nope"], env);
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(/^admin: /m);
  const unknown = await runAdminProcess(["bogus"], env);
  expect(unknown.code).toBe(2);
  expect(unknown.output).toContain('Unknown command "bogus"');
  // the server printed none of it (the key least of all)
  expect(service.output()).not.toContain(key);
  expect(service.output()).not.toContain(printed!);

  service.child.kill("SIGTERM");
  expect(await service.exited).toBe("exit 0");
  expect(existsSync(socket), "the socket is removed at shutdown").toBe(false);
  // with the server gone, the CLI opens the data dir itself again
  const afterwards = await runAdminProcess(["list-api-keys", "--json"], env);
  expect(afterwards.code, afterwards.output).toBe(0);
  expect(afterwards.output).toContain("beside");
});
