import assert from "node:assert/strict";
import { test } from "node:test";

import { envOf, parseDockerfile } from "./dockerfile";

// The Dockerfile reader the deployment checks rely on: it must read what Docker reads, or refuse.

test("stages, global ARG defaults in FROM, flags, exec and shell forms, continuations with comments inside", () => {
  const parsed = parseDockerfile(
    [
      "# syntax=docker/dockerfile:1",
      "ARG BASE=node:24-slim",
      "FROM ${BASE} AS build",
      "RUN npm ci \\",
      "  # a comment inside a continuation is dropped",
      "  --no-audit",
      "",
      "from ${BASE} as runtime",
      "COPY --from=build --chown=node:node /app ./",
      "ENV A=1 \\",
      '    B="two words"',
      'HEALTHCHECK --interval=5s CMD ["node", "-e", "1"]',
      'CMD ["node", "server.js"]',
      "ENTRYPOINT node server.js",
    ].join("\n"),
  );
  assert.deepEqual(parsed.globalArgs, { BASE: "node:24-slim" });
  assert.deepEqual(
    parsed.stages.map((s) => [s.name, s.image]),
    [
      ["build", "node:24-slim"],
      ["runtime", "node:24-slim"],
    ],
  );
  const [run] = parsed.stages[0]!.instructions;
  assert.equal(run!.args, "npm ci --no-audit");
  assert.equal(run!.line, 4);
  const [copy, env, health, cmd, entry] = parsed.stages[1]!.instructions;
  assert.deepEqual(copy!.flags, { from: "build", chown: "node:node" });
  assert.equal(copy!.args, "/app ./");
  assert.deepEqual(envOf(env!), { A: "1", B: "two words" });
  assert.equal(health!.flags.interval, "5s");
  assert.equal(health!.args, 'CMD ["node", "-e", "1"]');
  assert.deepEqual(cmd!.exec, ["node", "server.js"]);
  assert.equal(entry!.exec, null, "shell form");
});

test("refuses what it cannot read rather than misreading it", () => {
  assert.throws(() => parseDockerfile("FROM a\nRUN <<EOF\necho hi\nEOF\n"), /heredoc/);
  assert.throws(() => parseDockerfile("# escape=`\nFROM a\n"), /escape/);
  assert.throws(() => parseDockerfile("RUN echo before FROM\n"), /only ARG/);
  assert.throws(() => parseDockerfile("FROM a\nRUN echo \\"), /continuation/);
});
