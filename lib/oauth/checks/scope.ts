import { AppError } from "@/lib/core/errors";

import { BUYER_SCOPES, DEFAULT_BUYER_SCOPE, SCOPE_ALIASES } from "../constants";

// Scope strings (RFC 6749 §3.3): space-delimited, case-sensitive, order-free.

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Splits a scope parameter; an empty or absent one yields []. @throws AppError invalid_scope for bad characters */
export const parseScope = (raw: string | null | undefined): string[] => {
  if (raw === null || raw === undefined) return [];
  const tokens = raw.split(" ").filter((t) => t !== "");
  for (const token of tokens) {
    if (!SCOPE_TOKEN.test(token)) throw new AppError("invalid_scope", `Malformed scope token "${token}"`);
  }
  return [...new Set(tokens)];
};

/**
 * The buyer scopes to grant for an authorization request: the default when none is asked for.
 * @throws AppError invalid_scope naming the first unsupported scope
 */
export const resolveBuyerScopes = (raw: string | null | undefined): string[] => {
  const asked = [...new Set(parseScope(raw).map((s) => SCOPE_ALIASES[s] ?? s))];
  if (asked.length === 0) return [DEFAULT_BUYER_SCOPE];
  const unknown = asked.find((s) => !(BUYER_SCOPES as readonly string[]).includes(s));
  if (unknown) {
    throw new AppError(
      "invalid_scope",
      `Unsupported scope "${unknown}"; supported: ${BUYER_SCOPES.join(" ")}`,
    );
  }
  return asked;
};

/** A narrowed scope request (refresh, client_credentials) must stay within what was granted. */
export const narrowScopes = (raw: string | null | undefined, granted: readonly string[]): string[] => {
  const asked = parseScope(raw);
  if (asked.length === 0) return [...granted];
  const extra = asked.find((s) => !granted.includes(s));
  if (extra) throw new AppError("invalid_scope", `Scope "${extra}" exceeds the grant (${granted.join(" ")})`);
  return asked;
};

export const formatScope = (scopes: readonly string[]): string => scopes.join(" ");
