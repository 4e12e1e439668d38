import "server-only";

import { cookies } from "next/headers";

import { getBaseUrl } from "@/lib/config/env";
import { AUTHORIZATION_CODE_TTL_SECONDS, CONSENT_PATH } from "@/lib/oauth/constants";

// Between "Allow" and the agent's redirect_uri the browser stops at the limit step (DECISIONS B20: consent is not
// spending). The answer the agent gets — its redirect with code, state and iss — is made at "Allow", exactly as
// before, and waits here: in an httpOnly cookie scoped to the consent pages, living no longer than the code. Only
// this server reads it back, and only to send the browser on.

const COOKIE = "consent_continuation";

export type Continuation = { clientId: string; location: string };

export const saveContinuation = async (continuation: Continuation): Promise<void> => {
  (await cookies()).set(COOKIE, JSON.stringify(continuation), {
    path: CONSENT_PATH,
    httpOnly: true,
    sameSite: "lax",
    secure: getBaseUrl().startsWith("https:"),
    maxAge: AUTHORIZATION_CODE_TTL_SECONDS,
  });
};

export const readContinuation = async (): Promise<Continuation | null> => {
  const raw = (await cookies()).get(COOKIE)?.value;
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Continuation>;
    return typeof value.clientId === "string" && typeof value.location === "string"
      ? { clientId: value.clientId, location: value.location }
      : null;
  } catch {
    return null;
  }
};

/** Reads the continuation once: the cookie is gone after this. */
export const takeContinuation = async (): Promise<Continuation | null> => {
  const continuation = await readContinuation();
  (await cookies()).delete({ name: COOKIE, path: CONSENT_PATH });
  return continuation;
};
