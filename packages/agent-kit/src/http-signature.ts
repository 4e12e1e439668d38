import { createHash, createPrivateKey, type JsonWebKey } from "node:crypto";

import { createSigner, httpbis, type Algorithm } from "http-message-signatures";

// RFC 9421 HTTP message signatures as UCP profiles them for a request an agent sends: the components UCP names
// (@method, @authority, @path, @query when present, UCP-Agent, Idempotency-Key on state-changing methods, and
// Content-Digest + Content-Type over a body), params `created` and `keyid` only (UCP forbids `alg`: the algorithm
// follows from the key, ES256 being the one every verifier supports). A signed request reaches the service's
// signed trust tier when the key is in the signing_keys of the profile its UCP-Agent header names.

export type SignableRequest = {
  method: string;
  /** The absolute URL as sent (the service verifies against its public base URL). */
  url: string;
  headers: Headers;
  /** The body bytes exactly as they will be sent; null or "" for none. */
  body: Uint8Array | string | null;
};

const hasBody = (body: SignableRequest["body"]): body is Uint8Array | string =>
  body !== null && (typeof body === "string" ? body.length > 0 : body.byteLength > 0);

/** RFC 9530 `Content-Digest: sha-256=:<base64>:` over the raw body bytes (never over re-serialized JSON). */
export const contentDigest = (body: Uint8Array | string): string =>
  `sha-256=:${createHash("sha256")
    .update(typeof body === "string" ? Buffer.from(body, "utf8") : body)
    .digest("base64")}:`;

/** The components UCP wants covered on a request (UCP signatures.md "Request components"). */
export const requestComponents = (request: SignableRequest): string[] => {
  const components = ["@method", "@authority", "@path"];
  if (new URL(request.url).search) components.push("@query");
  if (request.headers.has("ucp-agent")) components.push("ucp-agent");
  if (["POST", "PUT", "PATCH", "DELETE"].includes(request.method.toUpperCase())) {
    if (request.headers.has("idempotency-key")) components.push("idempotency-key");
  }
  if (hasBody(request.body)) components.push("content-digest", "content-type");
  return components;
};

/** The RFC 9421 algorithm a private JWK signs with; null for a key type UCP verifiers do not take. */
export const algorithmForJwk = (jwk: JsonWebKey): Algorithm | null => {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ecdsa-p256-sha256";
  if (jwk.kty === "EC" && jwk.crv === "P-384") return "ecdsa-p384-sha384";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "ed25519";
  return null;
};

export type RequestSigner = {
  privateJwk: JsonWebKey;
  /** The key's `kid` in the agent profile's signing_keys. */
  kid: string;
  /** Signature label; default "sig1". */
  label?: string;
};

/**
 * Signs a request: returns its headers with Content-Digest (when there is a body and none was set),
 * Signature-Input and Signature added. Send the body bytes exactly as given.
 */
export const signRequest = async (
  request: SignableRequest,
  { privateJwk, kid, label = "sig1" }: RequestSigner,
  created: Date = new Date(),
): Promise<Headers> => {
  const alg = algorithmForJwk(privateJwk);
  if (!alg)
    throw new Error(`Cannot sign with a ${privateJwk.kty}/${privateJwk.crv} key: use EC P-256 (ES256)`);
  const headers = new Headers(request.headers);
  if (hasBody(request.body) && !headers.has("content-digest")) {
    headers.set("content-digest", contentDigest(request.body));
  }
  const signed = await httpbis.signMessage(
    {
      key: createSigner(createPrivateKey({ key: privateJwk, format: "jwk" }), alg, kid),
      name: label,
      fields: requestComponents({ ...request, headers }),
      params: ["created", "keyid"],
      paramValues: { created },
    },
    { method: request.method, url: request.url, headers: Object.fromEntries(headers.entries()) },
  );
  return new Headers(signed.headers as Record<string, string>);
};
