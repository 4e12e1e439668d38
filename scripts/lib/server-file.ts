import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

import { REPO_ROOT } from "./paths";

// What a running `npm start` serves on, in a file beside its data: its base URL and the provider sandboxes' URLs.
// The examples read it (examples/shared/local-service.ts) when BASE_URL / SUI_SANDBOX_URL are unset, so a server on
// any PORT is found, and so are the sandboxes, which get new ports on every start. The server removes it when it
// exits; a file left by a server that was killed is recognised by nobody answering at its URL.
// No secrets in it (the demo key stays in its own 0600 file); plain node, so the examples can import it.

export type ServerFile = {
  base_url: string;
  pid: number;
  started_at: string;
  /** The sandboxes' URL variables as the server uses them, e.g. `SUI_SANDBOX_URL` → `http://127.0.0.1:41234`. */
  sandboxes: Record<string, string>;
};

/**
 * Where it is: beside the PGlite data dir it belongs to, as the demo key file is (a test server on a temp dir never
 * overwrites a developer's), or in the clone's .data/ for PostgreSQL and in-memory PGlite. Relative paths are the
 * clone's, as `npm start` runs in it.
 */
export const serverFilePath = (env: Record<string, string | undefined> = process.env): string => {
  const dir = env.PGLITE_DIR || ".data/pglite";
  if (env.DATABASE_URL || dir.startsWith("memory://")) return path.join(REPO_ROOT, ".data", "server.json");
  return path.join(path.dirname(path.resolve(REPO_ROOT, dir)), "server.json");
};

/** Writes it (whole, by a rename) and removes it when this process exits, unless another server wrote it since. */
export const writeServerFile = (file: string, content: Omit<ServerFile, "pid" | "started_at">): void => {
  const record: ServerFile = { ...content, pid: process.pid, started_at: new Date().toISOString() };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${file}.${process.pid}`, file);
  process.once("exit", () => {
    if (readServerFile(file)?.pid === process.pid) unlinkSync(file);
  });
};

/** The file's record, or null when there is none (or it is not one). */
export const readServerFile = (file: string): ServerFile | null => {
  if (!existsSync(file)) return null;
  try {
    const record = JSON.parse(readFileSync(file, "utf8")) as Partial<ServerFile>;
    return typeof record.base_url === "string" && typeof record.pid === "number"
      ? { sandboxes: {}, started_at: "", ...record, base_url: record.base_url, pid: record.pid }
      : null;
  } catch {
    return null;
  }
};

/**
 * The variables another shell of this clone needs to find this server's files (server.json, the demo key), as a
 * command prefix: `PGLITE_DIR=… ` when the data dir is not the default one, `DEMO_KEY_FILE=… ` when it is set.
 */
export const sameFilesPrefix = (env: Record<string, string | undefined> = process.env): string => {
  const quote = (value: string) =>
    /^[\w@%+=:,./~-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
  const names = [
    ...(env.PGLITE_DIR && !env.DATABASE_URL && serverFilePath(env) !== serverFilePath({})
      ? ["PGLITE_DIR"]
      : []),
    ...(env.DEMO_KEY_FILE ? ["DEMO_KEY_FILE"] : []),
  ];
  return names.map((name) => `${name}=${quote(env[name]!)} `).join("");
};
