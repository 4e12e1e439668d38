import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";

// The embedded PGlite data dir is opened by one process at a time: a second opener (the admin CLI beside a
// running server) sees a stale copy of the data, may write changes the server never sees (an API key printed
// as created but refused), and can damage the dir. The server (scripts/serve.ts) writes a lock file with its
// pid beside the dir; every other opener (lib/config/database.ts) refuses before opening anything while a live
// process holds it. A lock whose pid is dead (a crashed or SIGKILLed server) is stale: taken over or ignored.

/** `<data dir>.lock`, beside the dir (which may not exist yet). */
export const lockFileFor = (dataDir: string): string => `${path.resolve(dataDir)}.lock`;

type LockRecord = { pid: number; since: string };

const readLock = (file: string): LockRecord | null => {
  try {
    const record = JSON.parse(readFileSync(file, "utf8")) as Partial<LockRecord>;
    return typeof record.pid === "number" ? { pid: record.pid, since: String(record.since ?? "") } : null;
  } catch {
    return null; // absent, or half-written by a dying process: not a live holder
  }
};

/** Whether a process with this pid exists (EPERM: it exists but belongs to another user). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** The live process holding the dir other than this one, or null. */
export const pgliteHolder = (dataDir: string): LockRecord | null => {
  const record = readLock(lockFileFor(dataDir));
  if (!record || record.pid === process.pid || !isAlive(record.pid)) return null;
  return record;
};

const inUse = (dataDir: string, holder: LockRecord): Error =>
  new Error(
    `The embedded database ${path.resolve(dataDir)} is in use by the server (pid ${holder.pid}): stop the server ` +
      `first, or set DATABASE_URL to a PostgreSQL database that several processes can share.`,
  );

/**
 * Refuses, before anything is opened, when a live server holds the data dir.
 * @throws Error with one sentence naming the dir and the holder's pid
 */
export const assertPgliteFree = (dataDir: string): void => {
  const holder = pgliteHolder(dataDir);
  if (holder) throw inUse(dataDir, holder);
};

/**
 * Takes the lock for this process (the server), taking over a stale one, and releases it at exit.
 * @throws Error when another live process holds it
 */
export const holdPgliteLock = (dataDir: string): void => {
  const file = lockFileFor(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
      closeSync(fd);
      process.once("exit", () => {
        if (readLock(file)?.pid === process.pid) unlinkSync(file);
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = pgliteHolder(dataDir);
      if (holder) throw inUse(dataDir, holder);
      if (readLock(file)?.pid === process.pid) return;
      unlinkSync(file); // stale: its process is gone
    }
  }
  throw new Error(`Could not take the lock ${file}: another process keeps creating it`);
};
