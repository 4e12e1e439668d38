// Minimal structured logging: one JSON line per event on stderr. Unexpected errors carry the Request-Id so an
// operator can find them from a client's report; their details never reach the client. A log outlives the
// request and is read by more people than the secrets' owners, so the text is passed through redactSecrets first:
// an unexpected error's message can quote its input (a driver echoing a query's arguments, a parser quoting a
// header), and that input may be a key or a token.

// Our own formats (lib/credentials/api-key-format.ts, lib/oauth) and the providers' we hold for stores.
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\bacs_([A-Za-z0-9]{12})_[A-Za-z0-9_-]{20,}/g, "acs_$1_[redacted]"], // platform API key: keep the public prefix
  [/\b(ocs|ort|oac)_[A-Za-z0-9_-]{20,}/g, "$1_[redacted]"], // OAuth client secret, refresh token, authorization code
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, "[redacted JWT]"], // access tokens, signed mandates
  [/\b(sk|rk)_(live|test)_[A-Za-z0-9]{8,}/g, "$1_$2_[redacted]"], // Stripe secret / restricted keys
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, "whsec_[redacted]"], // webhook signing secrets
  [/\b(pi|seti)_[A-Za-z0-9]+_secret_[A-Za-z0-9]+/g, "$1_[redacted client secret]"], // Stripe client secrets
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [redacted]"],
];

/** `text` with every recognisable secret replaced (public prefixes kept so an operator can still tell which). */
export const redactSecrets = (text: string): string =>
  SECRET_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);

export const logError = (error: Error, requestId: string | null): void => {
  const cause = error.cause instanceof Error ? error.cause : error;
  console.error(
    JSON.stringify({
      level: "error",
      time: new Date().toISOString(),
      request_id: requestId,
      code: (error as { code?: string }).code,
      message: redactSecrets(cause.message),
      stack: cause.stack === undefined ? undefined : redactSecrets(cause.stack),
    }),
  );
};
