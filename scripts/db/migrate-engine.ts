// Drives Prisma's schema engine compiled to WebAssembly through a driver adapter, so migrations deploy and new
// migration SQL is generated without the Rust schema-engine binary `prisma migrate` needs (it cannot be
// downloaded here: DECISIONS.md A and C). The engine writes the standard `_prisma_migrations` table, so a
// database migrated here stays valid for `prisma migrate deploy` wherever the Rust engine exists.
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import {
  bindMigrationAwareSqlAdapterFactory,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type * as EngineBindings from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { MigrationList, SchemaEngine, SchemaFilter } from "@prisma/schema-engine-wasm/schema_engine_bg";

/** A Prisma driver-adapter factory that can also open a shadow database (PrismaPg, PrismaPGlite). */
export type MigrationAdapterFactory = SqlMigrationAwareDriverAdapterFactory;

export type EngineLog = (line: string) => void;

export type ApplyMigrationsOptions = {
  /** Receives the engine's progress lines ("Applying `20260101000000_init`"). */
  log?: EngineLog;
  /** Folder holding one sub-folder per migration; defaults to prisma/migrations. */
  migrationsDir?: string;
};

export type DiffToSqlOptions = {
  /**
   * "empty": SQL creating the whole schema; "database": SQL taking the adapter's live database to the schema.
   * "database" needs PGlite: @prisma/adapter-pg 7.10 cannot read the catalog's `"char"` columns the engine
   * introspects (create-migration.ts diffs from a throwaway PGlite for that reason).
   */
  from: "empty" | "database";
  /** Target Prisma schema; defaults to prisma/schema.prisma. */
  schemaPath?: string;
  log?: EngineLog;
};

/** A failure reported by the schema engine (bad SQL in a migration, a failed earlier migration, a lost connection). */
export class MigrationEngineError extends Error {
  override name = "MigrationEngineError";
  /** Prisma's error code when the engine gave one (P3009: the database has a failed migration). */
  readonly code: string | undefined;

  constructor(message: string, options: { cause?: unknown; code?: string | undefined } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

// Resolved from this file, not the working directory: test processes and scripts start from anywhere.
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DEFAULT_MIGRATIONS_DIR = path.join(REPO_ROOT, "prisma", "migrations");
export const DEFAULT_SCHEMA_PATH = path.join(REPO_ROOT, "prisma", "schema.prisma");
export const MIGRATION_FILE = "migration.sql";
export const LOCKFILE = "migration_lock.toml";

// prisma.config.ts declares no external tables or enums: the engine manages everything in the schema.
const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

type Bindings = typeof EngineBindings;
type LoadedEngine = { bindings: Bindings; generation: number };

const require = createRequire(import.meta.url);
const BINDINGS_PATH = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
const WASM_PATH = path.join(path.dirname(BINDINGS_PATH), "schema_engine_bg.wasm");
const PANIC_REGISTRY_KEY = "PRISMA_WASM_PANIC_REGISTRY";

let compiled: Promise<WebAssembly.Module> | undefined;
let loaded: Promise<LoadedEngine> | undefined;
let generation = 0;

const unrefSetTimeout = (callback: () => void, ms: number): NodeJS.Timeout =>
  setTimeout(callback, ms >>> 0).unref();

const isImportValue = (value: unknown): value is WebAssembly.ImportValue => typeof value === "function";

// The bindings call `global.PRISMA_WASM_PANIC_REGISTRY.set_message(...)` when Rust panics. The Prisma client
// installs the same registry shape; reuse one that exists instead of replacing it.
const panicRegistry = (): { get: () => string } => {
  const existing: unknown = Reflect.get(globalThis, PANIC_REGISTRY_KEY);
  if (typeof existing === "object" && existing !== null && "get" in existing && "set_message" in existing) {
    const { get } = existing;
    if (typeof get === "function") return { get: () => String(get.call(existing)) };
  }
  let message = "";
  const registry = {
    get: () => message,
    set_message: (value: string) => {
      message = `RuntimeError: ${value}`;
    },
  };
  Reflect.set(globalThis, PANIC_REGISTRY_KEY, registry);
  return registry;
};

// The package entry imports the .wasm as an ES module, which node 20 only allows behind a flag, so the
// instance is built by hand (DECISIONS.md C). The compiled module is kept for the process: compiling 5 MB of
// wasm is the expensive part. A fresh copy of the JS bindings is imported per instance (the query string makes
// node load a new module record) because they cache views of the instance's memory in module state.
const instantiate = async (): Promise<LoadedEngine> => {
  compiled ??= readFile(WASM_PATH).then((bytes) => WebAssembly.compile(bytes));
  const compiledModule = await compiled;
  const current = ++generation;
  const url = pathToFileURL(BINDINGS_PATH).href + (current === 1 ? "" : `?instance=${current}`);
  const bindings = (await import(url)) as Bindings;
  const imports: WebAssembly.ModuleImports = {};
  for (const [name, value] of Object.entries(bindings)) if (isImportValue(value)) imports[name] = value;
  // The engine races its advisory-lock query against a 10 s timer and never clears it, so every command would
  // keep the process alive for 10 s after it finished. Unref'ing it is safe: while the engine really waits for
  // the lock, its PostgreSQL socket keeps the process alive, and PGlite (one session) grants the lock at once.
  for (const name of Object.keys(imports)) {
    if (name.startsWith("__wbg_setTimeout_")) imports[name] = unrefSetTimeout;
  }
  const instance = new WebAssembly.Instance(compiledModule, { "./schema_engine_bg.js": imports });
  bindings.__wbg_set_wasm(instance.exports);
  const start = instance.exports.__wbindgen_start;
  if (typeof start === "function") start();
  panicRegistry();
  return { bindings, generation: current };
};

const loadEngine = (): Promise<LoadedEngine> => {
  loaded ??= instantiate().catch((error: unknown) => {
    loaded = undefined;
    throw new MigrationEngineError(
      `Could not load the Prisma schema engine from ${WASM_PATH}: ${errorText(error)}`,
      {
        cause: error,
      },
    );
  });
  return loaded;
};

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// Engine errors carry a Rust span trace after the message ("   0: schema_engine_wasm::…"); keep the message.
const engineMessage = (error: unknown): string => {
  const text = errorText(error);
  const cut = text.search(/\n\s+0: /);
  return (cut === -1 ? text : text.slice(0, cut)).trim();
};

// Lines arrive as tracing JSON ({"level","fields":{"message",…}}); the "script" field repeats the whole
// migration SQL, so only the message is passed on.
const toLogLine = (raw: unknown): string => {
  const text = String(raw).trim();
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return text;
    const level = "level" in parsed && typeof parsed.level === "string" ? parsed.level : "INFO";
    const fields = "fields" in parsed && typeof parsed.fields === "object" ? parsed.fields : null;
    const message =
      fields && "message" in fields && typeof fields.message === "string" ? fields.message : text;
    return level === "INFO" ? message : `${level}: ${message}`;
  } catch {
    return text;
  }
};

type ScriptRunner = (script: string) => Promise<unknown>;

const callMethod = (target: object, name: string, args: unknown[]): unknown => {
  const method: unknown = Reflect.get(target, name);
  if (typeof method !== "function") throw new TypeError(`${name} is not a function`);
  const result: unknown = Reflect.apply(method, target, args);
  return result;
};

const hasMethod = (target: unknown, name: string): target is object =>
  typeof target === "object" && target !== null && typeof Reflect.get(target, name) === "function";

// Both adapters run migration scripts wrongly: @prisma/adapter-pg 7.10 splits the script on every ";" (breaking
// function bodies and string literals, and running statements one by one outside any transaction), and
// pglite-prisma-adapter 0.7.2 does not await PGlite's exec, so a failing migration is recorded as applied and its
// error surfaces as an unhandled rejection. Send the script to the driver in one simple-protocol query instead,
// as the Rust engine does: multi-statement, atomic (an implicit transaction) and awaited.
const scriptRunnerFor = (adapter: SqlDriverAdapter): ScriptRunner | null => {
  const driver: unknown = hasMethod(adapter, "underlyingDriver")
    ? callMethod(adapter, "underlyingDriver", [])
    : Reflect.get(adapter, "client");
  // PGlite: exec() is its multi-statement entry point (its query() is single-statement).
  if (hasMethod(driver, "exec")) return async (script) => callMethod(driver, "exec", [script]);
  // pg.Pool / pg.Client: query(text) without parameters uses the simple protocol.
  if (hasMethod(driver, "query")) return async (script) => callMethod(driver, "query", [script]);
  return null;
};

const stringField = (source: object, name: string): string | undefined => {
  const value: unknown = Reflect.get(source, name);
  return typeof value === "string" ? value : undefined;
};

// A PostgreSQL error (pg's DatabaseError, PGlite's) becomes the adapter error kind the engine understands, so its
// report names the SQLSTATE and the server's message.
const toAdapterError = (error: unknown): unknown => {
  if (!(error instanceof Error)) return error;
  const code = stringField(error, "code");
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return error;
  return new DriverAdapterError({
    kind: "postgres",
    code,
    severity: stringField(error, "severity") ?? "ERROR",
    message: error.message,
    detail: stringField(error, "detail"),
    column: stringField(error, "column"),
    hint: stringField(error, "hint"),
  });
};

type Supervised = {
  factory: MigrationAdapterFactory;
  /** The last error a migration script raised, kept to name it when the engine's own report is vague. */
  lastScriptError: () => unknown;
  disposeAll: () => Promise<void>;
};

// Wraps the caller's factory for one engine command: fixes script execution (above) and tracks every adapter
// handed out. The engine opens its own connections (PrismaPg opens a new pg.Pool per connect) and does not
// always dispose them, and a leaked pool keeps the process alive, so each is disposed exactly once afterwards.
const supervise = (factory: MigrationAdapterFactory): Supervised => {
  const opened: SqlDriverAdapter[] = [];
  let lastScriptError: unknown;
  const track = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    const run = scriptRunnerFor(adapter);
    if (run) {
      adapter.executeScript = async (script) => {
        try {
          await run(script);
        } catch (error) {
          lastScriptError = error;
          throw toAdapterError(error);
        }
      };
    }
    const dispose = adapter.dispose.bind(adapter);
    let disposed: Promise<void> | undefined;
    adapter.dispose = () => (disposed ??= dispose());
    opened.push(adapter);
    return adapter;
  };
  return {
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => track(await factory.connect()),
      connectToShadowDb: async () => track(await factory.connectToShadowDb()),
    },
    lastScriptError: () => lastScriptError,
    disposeAll: async () => {
      await Promise.allSettled(opened.map((adapter) => adapter.dispose()));
    },
  };
};

const FAILED_MIGRATION_HINT =
  "Repair the database by hand, then mark the migration rolled back (`prisma migrate resolve --rolled-back <name>` " +
  "where the Rust engine exists, or delete its row from _prisma_migrations) and migrate again. An embedded " +
  "development database can simply be deleted (PGLITE_DIR, default .data/pglite).";

// The engine's report is terse ("external connector error / No such table: nope"): add the migration it was
// applying, the server's own words and, for a database left with a failed migration (P3009), what to do.
const failureMessage = (error: unknown, applying: string | undefined, scriptError: unknown): string => {
  const lines = [engineMessage(error)];
  if (scriptError instanceof Error) {
    const code = stringField(scriptError, "code");
    lines.push(`Database error${code ? ` ${code}` : ""}: ${scriptError.message}`);
  }
  if (error instanceof Error && stringField(error, "code") === "P3009") lines.push(FAILED_MIGRATION_HINT);
  return applying ? `Migration ${applying} failed: ${lines.join("\n")}` : lines.join("\n");
};

/** Runs one engine command on a fresh engine bound to `factory`; the wasm instance is shared by the process. */
const withEngine = async <T>(
  factory: MigrationAdapterFactory,
  log: EngineLog,
  command: (engine: SchemaEngine) => Promise<T>,
): Promise<T> => {
  if (factory.provider !== "postgres") {
    throw new MigrationEngineError(
      `Migrations target PostgreSQL only; the adapter speaks ${factory.provider}.`,
    );
  }
  const { bindings, generation: instance } = await loadEngine();
  const supervised = supervise(factory);
  let applying: string | undefined;
  const onLog = (raw: unknown): void => {
    const line = toLogLine(raw);
    applying = /^Applying `(.+)`$/.exec(line)?.[1] ?? applying;
    log(line);
  };
  let engine: SchemaEngine | undefined;
  try {
    engine = await bindings.SchemaEngine.new(
      { datamodels: undefined },
      onLog,
      bindMigrationAwareSqlAdapterFactory(supervised.factory),
    );
    const result = await command(engine);
    return result;
  } catch (error) {
    // A Rust panic aborts inside wasm and leaves the instance unusable: drop it so the next call starts over.
    if (error instanceof WebAssembly.RuntimeError) {
      if (generation === instance) loaded = undefined;
      const panic = panicRegistry().get();
      throw new MigrationEngineError(`The Prisma schema engine crashed: ${panic || error.message}`, {
        cause: error,
      });
    }
    const code = error instanceof Error ? stringField(error, "code") : undefined;
    throw new MigrationEngineError(failureMessage(error, applying, supervised.lastScriptError()), {
      cause: error,
      code,
    });
  } finally {
    // After a panic the engine is still marked borrowed and free() throws; the instance is dropped anyway.
    try {
      engine?.free();
    } catch {
      loaded = generation === instance ? undefined : loaded;
    }
    await supervised.disposeAll();
  }
};

/** Reads the committed migrations the way the Prisma CLI does: one folder per migration, ordered by name. */
export const readMigrationsList = async (
  migrationsDir: string = DEFAULT_MIGRATIONS_DIR,
): Promise<MigrationList> => {
  const baseDir = path.resolve(migrationsDir);
  const lockContent = await readFile(path.join(baseDir, LOCKFILE), "utf8").catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch((error: unknown) => {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
    throw error;
  });
  // Folder names start with a UTC timestamp; compare code units so the order never depends on the locale.
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const migrationDirectories = await Promise.all(
    names.map(async (name) => {
      const file = path.join(baseDir, name, MIGRATION_FILE);
      const value = await readFile(file, "utf8").catch((error: unknown) => {
        throw new MigrationEngineError(
          `Migration ${name} has no readable ${MIGRATION_FILE} (${file}): ${errorText(error)}`,
        );
      });
      return { path: name, migrationFile: { path: MIGRATION_FILE, content: { tag: "ok" as const, value } } };
    }),
  );
  return {
    baseDir,
    lockfile: { path: LOCKFILE, content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
};

/**
 * Deploys every committed migration not yet recorded in `_prisma_migrations` (like `prisma migrate deploy`);
 * a rerun applies nothing. Throws MigrationEngineError with the engine's message when a migration fails.
 */
export const applyMigrations = async (
  factory: MigrationAdapterFactory,
  opts: ApplyMigrationsOptions = {},
): Promise<{ applied: string[] }> => {
  const migrationsList = await readMigrationsList(opts.migrationsDir);
  const result = await withEngine(factory, opts.log ?? (() => {}), (engine) =>
    engine.applyMigrations({ migrationsList, filters: NO_FILTERS }),
  );
  return { applied: result.appliedMigrationNames };
};

/**
 * SQL that takes `from` (nothing, or the adapter's live database) to the Prisma schema at `schemaPath`,
 * or null when there is nothing to change. Diffing from a database needs no shadow database.
 */
export const diffToSql = async (
  factory: MigrationAdapterFactory,
  opts: DiffToSqlOptions,
): Promise<string | null> => {
  const schemaPath = path.resolve(opts.schemaPath ?? DEFAULT_SCHEMA_PATH);
  const content = await readFile(schemaPath, "utf8");
  const files = [{ path: schemaPath, content }];
  const diff = withEngine(factory, opts.log ?? (() => {}), (engine) =>
    engine.diff({
      from:
        opts.from === "empty"
          ? { tag: "empty" }
          : { tag: "schemaDatasource", files, configDir: path.dirname(schemaPath) },
      to: { tag: "schemaDatamodel", files },
      script: true,
      // With exitCode set the engine answers 2 for a non-empty diff, which is more robust than matching the
      // "-- This is an empty migration." text it prints otherwise.
      exitCode: true,
      filters: NO_FILTERS,
    }),
  );
  const result = await diff.catch((error: unknown) => {
    if (
      opts.from === "database" &&
      error instanceof Error &&
      /could not be deserialized/.test(error.message)
    ) {
      throw new MigrationEngineError(
        `${error.message}\nDiffing from a live database works through PGlite only (${factory.adapterName} cannot ` +
          'read the catalog\'s "char" columns); diff from a PGlite holding the same migrations instead.',
        { cause: error },
      );
    }
    throw error;
  });
  if (result.exitCode !== 2) return null;
  return result.stdout ?? "";
};
