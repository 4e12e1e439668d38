import path from "node:path";

import { getEnv } from "./env";

/**
 * Where `npm start` keeps the demo platform key of a test-mode deployment (0600): beside the PGlite data dir it
 * belongs to (so a test server on a temp dir never overwrites a developer's key), or in .data/ for PostgreSQL.
 */
export const demoKeyFile = (): string => {
  if (process.env.DEMO_KEY_FILE) return path.resolve(process.env.DEMO_KEY_FILE);
  const env = getEnv();
  if (env.DATABASE_URL || env.PGLITE_DIR.startsWith("memory://"))
    return path.resolve(".data/demo-platform-key.json");
  return path.join(path.dirname(path.resolve(env.PGLITE_DIR)), "demo-platform-key.json");
};

/** The mounted bridge's signing key file: BRIDGE_KEY_FILE, else beside the demo platform key (lib/bridge/identity.ts). */
export const bridgeKeyFile = (): string => {
  if (process.env.BRIDGE_KEY_FILE) return path.resolve(process.env.BRIDGE_KEY_FILE);
  return path.join(path.dirname(demoKeyFile()), "bridge-agent-key.json");
};
