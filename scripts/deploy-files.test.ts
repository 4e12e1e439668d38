import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { test } from "node:test";

import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";

import { envOf, parseDockerfile, type Instruction } from "./lib/dockerfile";
import {
  NODE_CHECK_COMMAND,
  REPO_ROOT,
  SERVER_MALLOC_ENV,
  SERVER_NODE_ARGS,
  serverEnv,
  serverMallocShellPrefix,
} from "./lib/paths";

// The deployment files, checked without Docker (none can run here): the Dockerfile's instructions (stages, a
// non-root user, the health check, the port, the start command = `npm start`'s), its health check command run
// for real against a local server, the build context (.dockerignore), and compose.yaml validated against the
// Compose Specification's JSON Schema (e2e/vectors/compose-spec) plus what the schema cannot say: every service
// has a health check and the app waits for the others to be healthy; and the malloc settings `npm start` and the
// image start the server with.

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");
const dockerfile = parseDockerfile(read("Dockerfile"));
const [build, runtime] = dockerfile.stages;
const all = (keyword: string, stage = runtime!) => stage.instructions.filter((i) => i.keyword === keyword);
const one = (keyword: string, stage = runtime!): Instruction => {
  const found = all(keyword, stage);
  assert.equal(found.length, 1, `one ${keyword} in stage ${stage.name}`);
  return found[0]!;
};
const runtimeEnv = Object.assign({}, ...all("ENV").map(envOf)) as Record<string, string>;

/** The HEALTHCHECK's command in exec form (`HEALTHCHECK [flags] CMD [...]`). */
const healthcheckCommand = (): string[] => {
  const { args } = one("HEALTHCHECK");
  assert.match(args, /^CMD\s+\[/, "exec form");
  return JSON.parse(args.replace(/^CMD\s+/, "")) as string[];
};

test("Dockerfile: a build stage and a runtime stage, both on Node 24", () => {
  assert.equal(dockerfile.stages.length, 2);
  assert.deepEqual(
    dockerfile.stages.map((s) => s.name),
    ["build", "runtime"],
  );
  for (const stage of dockerfile.stages) assert.match(stage.image, /^node:24(-|$)/, stage.image);
  const runs = all("RUN", build).map((r) => r.args);
  assert.ok(
    runs.some((r) => /^npm ci\b/.test(r)),
    "installs with npm ci (the lock file, exactly)",
  );
  assert.ok(
    runs.some((r) => /\bnext build\b/.test(r)),
    "builds Next",
  );
  assert.ok(
    runs.some((r) => /^npm prune --omit=dev\b/.test(r)),
    "ships no dev dependencies",
  );
  // the runtime stage takes the build's result and installs nothing itself
  assert.deepEqual(all("RUN"), []);
  const copy = one("COPY");
  assert.equal(copy.flags.from, "build");
  assert.equal(copy.flags.chown, "node:node", "the app's files belong to the user that runs it");
});

test("Dockerfile: runs as a non-root user, exposes the port it listens on, starts like npm start", () => {
  const user = one("USER").args.split(":")[0];
  assert.ok(user && user !== "root" && user !== "0", `USER ${user}`);
  const userLine = one("USER").line;
  assert.ok(userLine < one("CMD").line, "USER before CMD");
  assert.equal(runtimeEnv.NODE_ENV, "production");
  assert.equal(runtimeEnv.HOST, "0.0.0.0", "reachable from outside the container");
  assert.equal(one("EXPOSE").args, runtimeEnv.PORT);
  const cmd = one("CMD").exec;
  assert.ok(cmd, "CMD in exec form, so the server gets SIGTERM itself");
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
  // npm start: the same command, after the Node version check and the malloc settings an operator's environment
  // has not set already
  assert.equal(
    scripts.start,
    `${NODE_CHECK_COMMAND} && ${serverMallocShellPrefix()} ${cmd!.join(" ")}`,
    "the CMD is npm start's command",
  );
  // the benches start the server as these do (the same node flags, the same malloc settings)
  assert.deepEqual(cmd, ["node", ...SERVER_NODE_ARGS]);
  assert.equal(
    scripts.serve,
    `${NODE_CHECK_COMMAND} && ${serverMallocShellPrefix()} node ${SERVER_NODE_ARGS.join(" ")} --no-setup`,
  );
  for (const [name, value] of Object.entries(SERVER_MALLOC_ENV)) assert.equal(runtimeEnv[name], value, name);
  assert.equal(one("STOPSIGNAL").args, "SIGTERM");
});

test("Dockerfile: the HEALTHCHECK asks /healthz and its command passes on 200 and fails otherwise", async () => {
  const check = one("HEALTHCHECK");
  for (const flag of ["interval", "timeout", "start-period", "retries"]) assert.ok(check.flags[flag], flag);
  const [program, ...args] = healthcheckCommand();
  assert.equal(program, "node");
  let status = 200;
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? "");
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = String((server.address() as AddressInfo).port);
  const run = () =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, args, { env: { ...process.env, PORT: port }, stdio: "ignore" });
      child.once("exit", resolve);
    });
  try {
    assert.equal(await run(), 0, "healthy on 200");
    status = 503;
    assert.equal(await run(), 1, "unhealthy on 503");
    server.close();
    assert.equal(await run(), 1, "unhealthy when nothing listens");
  } finally {
    server.close();
  }
  assert.deepEqual(paths, ["/healthz", "/healthz"]);
});

test("Dockerfile: every COPY source exists, and .dockerignore keeps secrets and local builds out of the context", () => {
  for (const copy of all("COPY", build!)) {
    const sources = copy.args.split(/\s+/).slice(0, -1);
    for (const source of sources) assert.ok(existsSync(path.join(REPO_ROOT, source)), source);
  }
  const ignored = read(".dockerignore")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  for (const entry of ["node_modules", ".next", ".git", ".env", ".data", "lib/generated"]) {
    assert.ok(ignored.includes(entry), `.dockerignore has ${entry}`);
  }
  for (const needed of ["package-lock.json", "prisma", "scripts", "lib", "app"]) {
    assert.ok(!ignored.includes(needed), `${needed} stays in the build context`);
  }
});

type Service = {
  build?: { target?: string };
  healthcheck?: { test?: string[] | string; interval?: string };
  depends_on?: Record<string, { condition: string }>;
  env_file?: ({ path: string; required?: boolean } | string)[];
  environment?: Record<string, string>;
  ports?: string[];
  image?: string;
};

const compose = parseYaml(read("compose.yaml")) as { services: Record<string, Service> };
// The schema names draft-07 by its https URL, which Ajv knows as http://json-schema.org/draft-07/schema#: the
// dialect is Ajv's default either way, so the (otherwise unmodified) schema is compiled without that key.
const { $schema: _dialect, ...schema } = JSON.parse(
  read("e2e/vectors/compose-spec/compose-spec.json"),
) as Record<string, unknown>;
const validateCompose = new Ajv({ strict: false, allErrors: true }).compile(schema);

test("compose.yaml is valid against the Compose Specification's JSON Schema (and the validator bites)", () => {
  assert.ok(validateCompose(compose), JSON.stringify(validateCompose.errors, null, 2));
  const broken = structuredClone(compose);
  broken.services.app!.depends_on!.postgres!.condition = "service_ready";
  assert.equal(validateCompose(broken), false, "an unknown depends_on condition is refused");
  assert.equal(validateCompose({ ...compose, service: {} }), false, "an unknown top-level key is refused");
});

test("compose.yaml: app, PostgreSQL, Meilisearch and Redis, each with a health check; the app waits for all three to be healthy", () => {
  const { app, postgres, meilisearch, redis } = compose.services;
  assert.ok(app && postgres && meilisearch && redis);
  for (const [name, service] of Object.entries(compose.services)) {
    const test = service.healthcheck?.test;
    assert.ok(Array.isArray(test) && ["CMD", "CMD-SHELL"].includes(test[0]!), `${name} has a health check`);
    assert.match(service.healthcheck?.interval ?? "", /^\d+(ms|s|m)$/, `${name} interval`);
  }
  assert.deepEqual(app.depends_on, {
    postgres: { condition: "service_healthy" },
    meilisearch: { condition: "service_healthy" },
    redis: { condition: "service_healthy" },
  });
  assert.equal(app.build?.target, dockerfile.stages.at(-1)!.name, "builds the Dockerfile's runtime stage");
  assert.deepEqual(app.env_file, [{ path: ".env", required: false }], "settings from .env");
  assert.match(app.environment?.DATABASE_URL ?? "", /^postgres:\/\/[^@]+@postgres:5432\//);
  assert.equal(app.environment?.MEILISEARCH_URL, "http://meilisearch:7700");
  assert.equal(app.environment?.REDIS_URL, "redis://redis:6379");
  assert.equal(app.environment?.HOST, "0.0.0.0");
  assert.ok(
    app.ports?.some((p) => p.endsWith(`:${runtimeEnv.PORT}`)),
    "publishes the port the image exposes",
  );
  // the app's health check is the image's
  assert.deepEqual((app.healthcheck?.test as string[]).slice(1, 3), healthcheckCommand().slice(0, 2));
  assert.match((app.healthcheck?.test as string[])[3]!, /\/healthz/);
});

test("npm start's malloc settings: the script's shell sets them unless the environment already does", () => {
  const prefix = serverMallocShellPrefix();
  const names = Object.keys(SERVER_MALLOC_ENV);
  const shown = (env: NodeJS.ProcessEnv): string =>
    execFileSync(
      "sh",
      [
        "-c",
        `${prefix} node -e 'console.log(${JSON.stringify(names)}.map((n) => process.env[n]).join(","))'`,
      ],
      { env, encoding: "utf8" },
    ).trim();
  const without = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !names.includes(name)),
  ) as NodeJS.ProcessEnv;
  assert.equal(shown(without), Object.values(SERVER_MALLOC_ENV).join(","));
  const own = Object.fromEntries(names.map((name) => [name, "65536"]));
  assert.equal(shown({ ...without, ...own }), names.map(() => "65536").join(","));
});

test("serverEnv: the server's malloc settings where the environment has none, the environment's own otherwise", () => {
  const [name] = Object.keys(SERVER_MALLOC_ENV) as (keyof typeof SERVER_MALLOC_ENV)[];
  assert.equal(serverEnv({ PORT: "1" })[name!], SERVER_MALLOC_ENV[name!]);
  assert.equal(serverEnv({ PORT: "1" }).PORT, "1");
  assert.equal(serverEnv({ [name!]: "65536" })[name!], "65536");
  // an unset variable (undefined in a spread env) leaves the default in place
  assert.equal(serverEnv({ [name!]: undefined })[name!], SERVER_MALLOC_ENV[name!]);
});
