import "server-only";

import { hash, verify, type Options } from "@node-rs/argon2";

// Passwords are hashed with argon2id (OWASP's first choice) at its recommended minimum cost (19 MiB, 2 passes, one
// lane), as a PHC string that records its own parameters, so stronger settings later still verify old hashes.

/** `algorithm: 2` is Argon2id (the package's Algorithm is an ambient const enum, which isolated modules cannot read). */
const OPTIONS: Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export const verifyPassword = async (passwordHash: string, password: string): Promise<boolean> => {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash verifies nothing
  }
};

/** A hash of nothing anyone knows: an unknown email costs the same as a wrong password (no account probing). */
let decoy: Promise<string> | null = null;
export const verifyNobody = async (password: string): Promise<false> => {
  decoy ??= hashPassword(`no account ${Math.random()}`);
  await verifyPassword(await decoy, password);
  return false;
};
