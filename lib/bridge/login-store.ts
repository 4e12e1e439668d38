import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";

import { z } from "zod";

// Where `bridge login` keeps a buyer's tokens: one file per service base URL under the user's config directory
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on macOS, %APPDATA% on Windows), in a
// folder of its own (0700), each file 0600 and written whole (a temporary file renamed over it), so a reader never
// sees half a token and no other user can read one. The name is a hash of the base URL (any URL, any length, no
// path tricks); the file also says which URL it is for.

export const StoredLoginSchema = z.object({
  base_url: z.string(),
  client_id: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string().optional(),
  access_token: z.string(),
  refresh_token: z.string().optional(),
  /** ISO time the access token stops working (from expires_in at issue). */
  expires_at: z.string(),
  scope: z.string().optional(),
});
export type StoredLogin = z.infer<typeof StoredLoginSchema>;

/** The user's config directory for the bridge (AGENT_COMMERCE_BRIDGE_CONFIG overrides it). */
export const bridgeConfigDir = (env: NodeJS.ProcessEnv = process.env): string => {
  if (env.AGENT_COMMERCE_BRIDGE_CONFIG) return path.resolve(env.AGENT_COMMERCE_BRIDGE_CONFIG);
  const base =
    process.platform === "win32"
      ? (env.APPDATA ?? path.join(homedir(), "AppData", "Roaming"))
      : process.platform === "darwin"
        ? path.join(homedir(), "Library", "Application Support")
        : (env.XDG_CONFIG_HOME ?? path.join(homedir(), ".config"));
  return path.join(base, "agent-commerce-bridge");
};

/** The login file for a service, keyed by its base URL. */
export const loginFile = (baseUrl: string, configDir: string = bridgeConfigDir()): string =>
  path.join(configDir, "logins", `${createHash("sha256").update(baseUrl).digest("hex").slice(0, 32)}.json`);

/** The stored login for `baseUrl`, or null when there is none (or the file is not one of ours). */
export const readLogin = async (file: string, baseUrl: string): Promise<StoredLogin | null> => {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null; // a damaged file is no login: `bridge login` writes a new one
  }
  const parsed = StoredLoginSchema.safeParse(json);
  return parsed.success && parsed.data.base_url === baseUrl ? parsed.data : null;
};

/** Writes the login (0600, atomically; its folder 0700). */
export const writeLogin = async (file: string, login: StoredLogin): Promise<void> => {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  await rename(temporary, file);
};

export const deleteLogin = (file: string): Promise<void> => rm(file, { force: true });

/**
 * Runs `fn` holding the file's lock (`<file>.lock`, created exclusively): several bridges (one per MCP client)
 * share a login, and a refresh token rotates on use (a reused one revokes the whole family), so only one of them
 * refreshes at a time and the others read its result. A lock older than `staleMs` is a crashed holder's.
 */
export const withLoginLock = async <T>(file: string, fn: () => Promise<T>, staleMs = 15_000): Promise<T> => {
  const lock = `${file}.lock`;
  const deadline = Date.now() + staleMs;
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: "wx", mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (Date.now() > deadline) {
        await rm(lock, { force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
};
