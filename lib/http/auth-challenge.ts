import { getBaseUrl } from "@/lib/config/env";
import type { AppError } from "@/lib/core/errors";
import { bearerChallenge } from "@/lib/oauth/bearer-challenge";

// RFC 9110 §15.5.2: a 401 carries a WWW-Authenticate challenge. A buyer-bound refusal (identity_required) or a bad
// bearer (invalid_token) is rendered with a Bearer challenge naming the protected resource metadata (RFC 6750 §3,
// RFC 9728 §5.1) whoever threw it and however deep: OAuth clients, the MCP SDK's included, start authorization from
// exactly that 401, and the bridge relays it unchanged (seed §5 rule 6). A throw site that knows better (the
// account MCP's own resource, a scope to step up to) sets its own header, which is kept.

const BUYER_SCOPE = "purchase:complete";

/** The Bearer challenge a code renders with when its thrower set none; null for codes that take none. */
const defaultChallenge = (code: AppError["code"]): string | null => {
  if (code === "identity_required") return bearerChallenge({ baseUrl: getBaseUrl(), scope: BUYER_SCOPE });
  if (code === "invalid_token") return bearerChallenge({ baseUrl: getBaseUrl(), error: "invalid_token" });
  return null;
};

const hasChallenge = (headers: Record<string, string>): boolean =>
  Object.keys(headers).some((name) => name.toLowerCase() === "www-authenticate");

/** The response headers of an error: its own, plus the Bearer challenge its code needs when it has none. */
export const errorHeaders = (error: AppError): Record<string, string> | undefined => {
  const own = error.headers ?? {};
  if (hasChallenge(own)) return error.headers;
  const challenge = defaultChallenge(error.code);
  return challenge ? { ...own, "www-authenticate": challenge } : error.headers;
};
