// How the examples find the service and its sandboxes on this machine, without fixed ports: the URL given
// (argument, BASE_URL, SUI_SANDBOX_URL), else what the running `npm start` recorded beside its data
// (scripts/lib/server-file.ts), else http://127.0.0.1:3000 (`npm run dev`). Whatever is chosen must answer before
// the purchase starts: a server that stopped, or a sandbox URL from an earlier start (each start gives the
// sandboxes new ports), is a message saying so and what to do, not a `fetch failed` halfway through.
import path from "node:path";

import { readServerFile, serverFilePath, type ServerFile } from "../../scripts/lib/server-file";

const DEFAULT_BASE_URL = "http://127.0.0.1:3000";
const PROBE_TIMEOUT_MS = 3_000;

/** A set-up problem an example reports as its one line of output (exit 1). */
export class NoServiceError extends Error {}

type Env = Record<string, string | undefined>;

/** Whether anything answers HTTP at `url` (any status: the sandboxes have no health route). */
const answers = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
};

const trimSlash = (url: string): string => url.replace(/\/+$/, "");
const shown = (file: string): string => {
  const inside = path.relative(process.cwd(), file);
  return inside && !inside.startsWith("..") && !path.isAbsolute(inside) ? inside : file;
};
const recorded = (record: ServerFile, file: string): string =>
  `recorded by npm start (pid ${record.pid}${record.started_at ? `, ${record.started_at}` : ""}) in ${shown(file)}`;

export type LocalService = {
  baseUrl: string;
  /** What the running server recorded, when `baseUrl` is that server (its sandboxes are on its chain). */
  record: ServerFile | null;
  file: string;
};

/** The service to talk to: `given` (argument or BASE_URL) or the recorded one; throws NoServiceError when none answers. */
export const findService = async (
  given: string | undefined,
  env: Env = process.env,
): Promise<LocalService> => {
  const file = serverFilePath(env);
  const record = readServerFile(file);
  if (given) {
    const baseUrl = trimSlash(given);
    if (!(await answers(`${baseUrl}/healthz`)))
      throw new NoServiceError(
        `No server answers at ${baseUrl} (BASE_URL or the argument); start it with npm start, or leave BASE_URL unset to use the one npm start records in ${shown(file)}`,
      );
    return { baseUrl, record: record && trimSlash(record.base_url) === baseUrl ? record : null, file };
  }
  if (record) {
    const baseUrl = trimSlash(record.base_url);
    if (!(await answers(`${baseUrl}/healthz`)))
      throw new NoServiceError(
        `No server answers at ${baseUrl} (${recorded(record, file)}): it has stopped; start it with npm start`,
      );
    return { baseUrl, record, file };
  }
  if (!(await answers(`${DEFAULT_BASE_URL}/healthz`)))
    throw new NoServiceError(
      `No running server found: ${shown(file)} does not exist (npm start writes it once it is ready; with another PGLITE_DIR, set the same one here) and nothing answers at ${DEFAULT_BASE_URL}; start it with npm start, or set BASE_URL`,
    );
  return { baseUrl: DEFAULT_BASE_URL, record: null, file };
};

/** A sandbox's URL (`name`, e.g. SUI_SANDBOX_URL): set in `env`, else the one the server recorded; it must answer. */
export const findSandbox = async (
  service: LocalService,
  name: string,
  label: string,
  env: Env = process.env,
): Promise<string> => {
  const given = env[name];
  if (given) {
    if (!(await answers(given)))
      throw new NoServiceError(
        `No ${label} answers at ${given} (${name}): npm start gives it a new port each time it starts; unset ${name} to use the one the running server recorded in ${shown(service.file)}`,
      );
    return trimSlash(given);
  }
  const url = service.record?.sandboxes[name];
  if (!url)
    throw new NoServiceError(
      `No ${label} URL: ${service.record ? `the server at ${service.baseUrl} started none (its ${name} named one)` : `${service.baseUrl} is not the server recorded in ${shown(service.file)}`}; set ${name}`,
    );
  if (!(await answers(url)))
    throw new NoServiceError(
      `No ${label} answers at ${url} (${recorded(service.record!, service.file)}); restart the server with npm start`,
    );
  return trimSlash(url);
};

/** For an example's top level: the result, or the problem printed as one line and exit 1. */
export const orExit = async <T>(found: Promise<T>): Promise<T> => {
  try {
    return await found;
  } catch (error) {
    if (!(error instanceof NoServiceError)) throw error;
    console.error(`✖ ${error.message}`);
    process.exit(1);
  }
};
