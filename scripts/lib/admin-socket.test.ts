import assert from "node:assert/strict";
import { Console } from "node:console";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { after, before, test } from "node:test";

import { adminSocketPath, runThroughServer, serveAdminSocket, type AdminCommands } from "./admin-socket";

// The admin socket's framing, with commands that write as the real ones do (a Console over the socket's streams,
// several lines in one go, stdout and stderr mixed): every line reaches the CLI, in order, before the exit code.
// The real commands beside a running server are in e2e/http/admin-beside-server.spec.ts.

const LINES = Array.from({ length: 200 }, (_, i) => `line ${i} ${"x".repeat(i % 7 === 0 ? 4000 : 20)}`);

const commands: AdminCommands = {
  runAdmin: async (argv, io) => {
    const out = new Console({ stdout: io.stdout, stderr: io.stderr, colorMode: false });
    const [command] = argv;
    if (command === "four-lines") {
      // create-api-key's shape: the secret on the third line
      out.log('Created platform key key_1 "x"');
      out.log("Permissions: (none)");
      out.log("\n  X-API-Key: acs_secret\n");
      out.log("Store it now: it is shown only once.");
      return 0;
    }
    if (command === "many") {
      for (const [i, line] of LINES.entries()) {
        if (i % 50 === 49) out.error(`warning ${i}`);
        out.log(line);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      out.table([{ id: "a" }, { id: "b" }]);
      return 3;
    }
    if (command === "throws") {
      out.log("started");
      throw new Error("boom");
    }
    return 2;
  },
  adminErrorMessage: (thrown) => (thrown as Error).message,
};

let dir = "";
let socket = "";
let close: () => void = () => undefined;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "acs-admin-socket-"));
  socket = adminSocketPath(path.join(dir, "pglite"));
  const server = await serveAdminSocket(socket, commands);
  close = () => server.close();
});
after(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a command through the socket as the CLI does; what it printed, stream by stream and interleaved. */
const run = async (argv: string[]) => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  let both = "";
  stdout.on("data", (c: Buffer) => ((out += c.toString()), (both += c.toString())));
  stderr.on("data", (c: Buffer) => ((err += c.toString()), (both += c.toString())));
  const code = await runThroughServer(socket, argv, { stdout, stderr });
  return { code, out, err, both };
};

test("every line of a multi-line answer arrives, the once-shown secret included", async () => {
  const { code, out } = await run(["four-lines"]);
  assert.equal(code, 0);
  assert.equal(
    out,
    'Created platform key key_1 "x"\nPermissions: (none)\n\n  X-API-Key: acs_secret\n\n' +
      "Store it now: it is shown only once.\n",
  );
});

test("a long answer on both streams arrives whole and in the order it was written, then its exit code", async () => {
  const { code, out, err, both } = await run(["many"]);
  assert.equal(code, 3);
  assert.equal(out.split("\n").filter((l) => l.startsWith("line ")).length, LINES.length);
  assert.ok(out.startsWith(`${LINES.join("\n")}\n`), "stdout whole, in order");
  assert.match(out, /│ id\s*│/, "the table written after a pause");
  assert.equal(err, "warning 49\nwarning 99\nwarning 149\nwarning 199\n");
  // interleaved as written: the warning written between lines 48 and 49 arrives between them
  assert.ok(both.indexOf("line 48 ") < both.indexOf("warning 49\n"));
  assert.ok(both.indexOf("warning 49\n") < both.indexOf("line 49 "));
});

test("a command that throws: what it printed, then its error, exit 1", async () => {
  const { code, out, err } = await run(["throws"]);
  assert.equal(code, 1);
  assert.equal(out, "started\n");
  assert.equal(err, "admin: boom\n");
});

test("commands sent together are each answered whole", async () => {
  const runs = await Promise.all([run(["four-lines"]), run(["many"]), run(["four-lines"])]);
  assert.deepEqual(
    runs.map((r) => r.code),
    [0, 3, 0],
  );
  for (const r of [runs[0]!, runs[2]!]) assert.match(r.out, /X-API-Key: acs_secret\n\nStore it now/);
  assert.equal(runs[1]!.out.split("\n").filter((l) => l.startsWith("line ")).length, LINES.length);
});
