import "server-only";

import { getDb } from "@/lib/config/db";
import { knownBytes, responseOf, withHeadersSet } from "@/lib/core/known-body";
import { signResponse } from "@/lib/httpsig/signature";

import { currentSigningKey } from "./rotate-signing-key";

// Response signatures by the store (UCP signatures.md "When Signatures Apply": RECOMMENDED on checkout completion
// and payment authorization responses): RFC 9421 over @status, content-digest and content-type with the store's
// current signing key, which its profile publishes in signing_keys. Platforms verify with the business profile.

/** What signing adds to an answer's headers (signResponse). */
const SIGNATURE_HEADERS = ["content-digest", "signature-input", "signature"] as const;

type Handler<C> = (request: Request, context: C) => Promise<Response>;

/**
 * Wraps a per-store route handler so its 2xx answers are signed by the store. Error answers stay unsigned
 * (signatures.md: optional for 4xx/5xx), as do answers of a store without a key. The body bytes are unchanged.
 */
export const signedByStore =
  <C extends { params: Promise<Record<string, unknown>> }>(handler: Handler<C>): Handler<C> =>
  async (request, context) => {
    const response = await handler(request, context);
    if (response.status < 200 || response.status > 299) return response;
    // Next passes no context to a route without dynamic segments; this wrapper only serves /s/<slug>/… routes
    const slug = (await context?.params)?.store_slug;
    const key = typeof slug === "string" ? await currentSigningKey(await getDb(), { storeSlug: slug }) : null;
    if (!key) return response;
    const known = knownBytes(response);
    const body = known ?? new Uint8Array(await response.arrayBuffer());
    const signed = await signResponse(
      { status: response.status, headers: response.headers, body },
      { privateJwk: key.privateJwk, keyid: key.kid, created: new Date() },
    );
    // a body read from its stream here leaves that Response used: the bytes go on in a new one
    if (known === undefined) return responseOf(body, { status: response.status, headers: signed });
    return withHeadersSet(
      response,
      SIGNATURE_HEADERS.flatMap((name) => {
        const value = signed.get(name);
        return value === null ? [] : [[name, value] as const];
      }),
    );
  };
