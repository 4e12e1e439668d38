import { createHash } from "node:crypto";

import canonicalize from "canonicalize";

// DECISIONS.md B8: the fingerprint is the hash of the canonical (RFC 8785 JCS) operation arguments, never the
// transport envelope, so a REST retry and an MCP retry (whose JSON-RPC id changes) fingerprint alike.

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

export const requestHash = (operation: string, input: unknown): string =>
  sha256(canonicalize({ operation, input: input ?? null }) ?? "null");

/** Scope = principal + store + operation + key, hashed into one unique column. */
export const scopeHash = (scope: {
  principalId: string;
  storeSlug: string;
  operation: string;
  key: string;
}) => sha256(canonicalize([scope.principalId, scope.storeSlug, scope.operation, scope.key]) ?? "");
