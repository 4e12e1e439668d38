import { createPrivateKey, createPublicKey, type JsonWebKey } from "node:crypto";

import { createSigner, createVerifier, httpbis, type Algorithm } from "http-message-signatures";
import {
  parseDictionary,
  serializeDictionary,
  Token,
  type Dictionary,
  type InnerList,
} from "structured-headers";

import { AppError } from "@/lib/core/errors";
import { memoByObject } from "@/lib/core/memo-by-object";

import { checkContentDigest, contentDigest } from "./content-digest";

// the signing-key rows and agent profiles that hold these JWKs are cached objects: parse each key once per copy
const privateKeyOf = memoByObject((jwk: JsonWebKey) => createPrivateKey({ key: jwk, format: "jwk" }));
const publicKeyOf = memoByObject((jwk: JsonWebKey) => createPublicKey({ key: jwk, format: "jwk" }));

// RFC 9421 HTTP message signatures as UCP profiles them (CONTRACT.md §13), over http-message-signatures@1.0.6
// with the traps DECISIONS.md A lists handled here, in one place:
// - params are `created` and `keyid` (plus `expires` when asked); UCP forbids `alg`, the algorithm comes from
//   the key (P-256 → ecdsa-p256-sha256, ES256 being the one every verifier must support);
// - only `=== true` counts as verified (the library answers `null` for "no signature" or "no key");
// - every label present must verify on its own: the library, given several, answers for the last it can key;
// - Content-Digest is checked here against the raw bytes (the library never reads bodies);
// - an unquoted keyid parses as a Token: refused, it must be a string;
// - messages carry the URL the signer saw (the service's public base URL, not the internal one).

export type HttpMessage = {
  method: string;
  /** Absolute URL as the signer addressed it. */
  url: string;
  headers: Headers;
  /** Raw body bytes; null or empty for none. */
  body: Uint8Array | string | null;
};

type LibraryRequest = { method: string; url: string; headers: Record<string, string> };

const hasBody = (body: HttpMessage["body"]): body is Uint8Array | string =>
  body !== null && (typeof body === "string" ? body.length > 0 : body.byteLength > 0);

const headerRecord = (headers: Headers): Record<string, string> => Object.fromEntries(headers.entries());

/** The components UCP wants signed on a request (CONTRACT.md §13 "Request components"). */
export const requestComponents = (message: HttpMessage): string[] => {
  const url = new URL(message.url);
  const components = ["@method", "@authority", "@path"];
  if (url.search) components.push("@query");
  if (message.headers.has("ucp-agent")) components.push("ucp-agent");
  if (["POST", "PUT", "PATCH", "DELETE"].includes(message.method.toUpperCase())) {
    if (message.headers.has("idempotency-key")) components.push("idempotency-key");
  }
  if (hasBody(message.body)) components.push("content-digest", "content-type");
  for (const name of ["webhook-id", "webhook-timestamp"]) {
    if (message.headers.has(name)) components.push(name);
  }
  return components;
};

/** The RFC 9421 algorithm a JWK implies; null when we do not sign or verify with that key type. */
export const algorithmForJwk = (jwk: JsonWebKey): Algorithm | null => {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ecdsa-p256-sha256";
  if (jwk.kty === "EC" && jwk.crv === "P-384") return "ecdsa-p384-sha384";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "ed25519";
  return null;
};

export type SignOptions = {
  privateJwk: JsonWebKey;
  keyid: string;
  /** Omit only to produce a signature without `created` (RFC 9421 and UCP make it optional). */
  created?: Date;
  expires?: Date;
  label?: string;
  /** Defaults to requestComponents(message). */
  components?: string[];
};

/**
 * Signs a request: returns its headers with Content-Digest (when there is a body and none was set),
 * Signature-Input and Signature added. The body bytes must be sent exactly as given.
 */
export const signRequest = async (message: HttpMessage, options: SignOptions): Promise<Headers> => {
  const alg = algorithmForJwk(options.privateJwk);
  if (!alg) throw new Error(`Cannot sign with a ${options.privateJwk.kty}/${options.privateJwk.crv} key`);
  const headers = new Headers(message.headers);
  if (hasBody(message.body) && !headers.has("content-digest")) {
    headers.set("content-digest", contentDigest(message.body));
  }
  const withDigest = { ...message, headers };
  const key = createSigner(privateKeyOf(options.privateJwk), alg, options.keyid);
  const signed = await httpbis.signMessage(
    {
      key,
      name: options.label ?? "sig1",
      fields: options.components ?? requestComponents(withDigest),
      params: [
        ...(options.created ? ["created" as const] : []),
        ...(options.expires ? ["expires" as const] : []),
        "keyid" as const,
      ],
      paramValues: {
        ...(options.created ? { created: options.created } : {}),
        ...(options.expires ? { expires: options.expires } : {}),
      },
    },
    { method: message.method, url: message.url, headers: headerRecord(headers) },
  );
  return new Headers(signed.headers as Record<string, string>);
};

/** The components UCP signs on a response (signatures.md "REST Response Signing"). */
export const RESPONSE_COMPONENTS = ["@status", "content-digest", "content-type"] as const;

/**
 * Signs a response: returns its headers with Content-Digest, Signature-Input and Signature added, covering
 * `@status` and, with a body, `content-digest` and `content-type` (UCP signatures.md "REST Response Signing").
 */
export const signResponse = async (
  response: { status: number; headers: Headers; body: Uint8Array | string },
  options: { privateJwk: JsonWebKey; keyid: string; created: Date },
): Promise<Headers> => {
  const alg = algorithmForJwk(options.privateJwk);
  if (!alg) throw new Error(`Cannot sign with a ${options.privateJwk.kty}/${options.privateJwk.crv} key`);
  const headers = new Headers(response.headers);
  const withBody = hasBody(response.body);
  if (withBody) headers.set("content-digest", contentDigest(response.body));
  const key = createSigner(privateKeyOf(options.privateJwk), alg, options.keyid);
  const signed = await httpbis.signMessage(
    {
      key,
      name: "sig1",
      fields: withBody ? [...RESPONSE_COMPONENTS] : ["@status"],
      params: ["created", "keyid"],
      paramValues: { created: options.created },
    },
    { status: response.status, headers: headerRecord(headers) },
  );
  return new Headers(signed.headers as Record<string, string>);
};

export type VerifyOptions = {
  /** The signer's public JWK for a keyid, or null when unknown. */
  lookupKey: (keyid: string) => Promise<JsonWebKey | null>;
  now: Date;
  /** Allowed clock difference for `created`/`expires` (DECISIONS.md A: about 60 s). */
  skewSeconds?: number;
  /** Oldest acceptable `created` (replay window). */
  maxAgeSeconds?: number;
  /** Components every signature must cover; defaults to the UCP request set. */
  requiredComponents?: string[];
  /**
   * Require `created`. RFC 9421 §2.3 and UCP signatures.md make it optional, so the signed tier does not; our own
   * webhook receivers' example may.
   */
  requireCreated?: boolean;
  /** Require a Content-Digest covering a non-empty body (UCP: yes; RFC Appendix B cases: no). */
  requireDigest?: boolean;
};

export type VerifiedSignature = {
  label: string;
  keyid: string;
  created: number | null;
  expires: number | null;
  /** base64 of the signature bytes (for replay bookkeeping). */
  signature: string;
};

const invalid = (message: string) => new AppError("signature_invalid", message);

const parse = (name: string, value: string): Dictionary => {
  try {
    return parseDictionary(value);
  } catch {
    throw invalid(`${name} is not a valid structured-field dictionary`);
  }
};

const isInnerList = (member: unknown): member is InnerList =>
  Array.isArray(member) && Array.isArray(member[0]);

const numberParam = (params: Map<string, unknown>, name: string): number | null => {
  if (!params.has(name)) return null;
  const value = params.get(name);
  if (typeof value !== "number" || !Number.isInteger(value)) throw invalid(`${name} must be an integer`);
  return value;
};

const componentNames = (list: InnerList): string[] =>
  list[0].map(([item]) => {
    if (typeof item !== "string") throw invalid("Covered components must be strings");
    return item;
  });

/**
 * Verifies every signature on a request. Returns null when the request carries no signature at all; otherwise
 * either every label verifies or an AppError is thrown (a request that claims to be signed is never silently
 * treated as unsigned).
 * @throws AppError signature_missing, signature_invalid, key_not_found, digest_mismatch, algorithm_unsupported
 */
export const verifyRequestSignature = async (
  message: HttpMessage,
  options: VerifyOptions,
): Promise<VerifiedSignature[] | null> => {
  const inputHeader = message.headers.get("signature-input");
  const signatureHeader = message.headers.get("signature");
  if (inputHeader === null && signatureHeader === null) return null;
  if (inputHeader === null || signatureHeader === null) {
    throw new AppError(
      "signature_missing",
      inputHeader === null ? "Signature without Signature-Input" : "Signature-Input without Signature",
    );
  }
  const inputs = parse("Signature-Input", inputHeader);
  const signatures = parse("Signature", signatureHeader);
  if (inputs.size === 0) throw invalid("Signature-Input names no signature");
  for (const label of signatures.keys()) {
    if (!inputs.has(label))
      throw new AppError("signature_missing", `Signature ${label} has no Signature-Input`);
  }

  const skew = options.skewSeconds ?? 60;
  const nowSeconds = Math.floor(options.now.getTime() / 1000);
  const bodyPresent = hasBody(message.body);
  const requireDigest = options.requireDigest ?? true;
  if (requireDigest && bodyPresent) {
    const digestHeader = message.headers.get("content-digest");
    if (digestHeader === null) throw new AppError("digest_mismatch", "A request body needs a Content-Digest");
    const check = checkContentDigest(digestHeader, message.body ?? "");
    if (check !== "match") {
      throw new AppError(
        "digest_mismatch",
        check === "mismatch"
          ? "Content-Digest does not match the body bytes"
          : `Content-Digest is ${check === "malformed" ? "malformed" : "in no algorithm we check (use sha-256)"}`,
      );
    }
  }
  const required = options.requiredComponents ?? requestComponents(message);

  const verified: VerifiedSignature[] = [];
  for (const [label, member] of inputs) {
    if (!isInnerList(member)) throw invalid(`Signature-Input ${label} is not an inner list`);
    const signatureMember = signatures.get(label);
    if (!signatureMember || !(signatureMember[0] instanceof ArrayBuffer)) {
      throw new AppError("signature_missing", `Signature ${label} is missing or not a byte sequence`);
    }
    const params = member[1];
    const keyid = params.get("keyid");
    if (keyid instanceof Token) throw invalid(`keyid of ${label} must be a quoted string, not a token`);
    if (typeof keyid !== "string" || keyid === "") throw invalid(`Signature ${label} has no keyid`);
    // The key first: an unknown keyid is key_not_found whatever else is wrong with the signature.
    const jwk = await options.lookupKey(keyid);
    if (!jwk) throw new AppError("key_not_found", `No signing key "${keyid}" in the signer's profile`);
    const created = numberParam(params, "created");
    const expires = numberParam(params, "expires");
    if (options.requireCreated && created === null) throw invalid(`Signature ${label} has no created time`);
    if (created !== null && created > nowSeconds + skew)
      throw invalid(`Signature ${label} is created in the future`);
    if (
      created !== null &&
      options.maxAgeSeconds !== undefined &&
      nowSeconds - created > options.maxAgeSeconds + skew
    ) {
      throw invalid(`Signature ${label} is too old (created ${nowSeconds - created} s ago)`);
    }
    if (expires !== null && expires < nowSeconds - skew) throw invalid(`Signature ${label} has expired`);

    const covered = componentNames(member);
    const missing = required.filter((c) => !covered.includes(c));
    if (missing.length > 0) throw invalid(`Signature ${label} does not cover ${missing.join(", ")}`);
    if (bodyPresent && requireDigest && !covered.includes("content-digest")) {
      throw invalid(`Signature ${label} does not cover content-digest`);
    }

    const alg = algorithmForJwk(jwk);
    if (!alg)
      throw new AppError("algorithm_unsupported", `Key "${keyid}" is ${jwk.kty}/${jwk.crv}; use ES256`);
    const algParam = params.get("alg");
    if (algParam !== undefined && String(algParam) !== alg) {
      throw new AppError(
        "algorithm_unsupported",
        `alg "${String(algParam)}" does not match key "${keyid}" (${alg})`,
      );
    }

    // Verify this label alone: the library, handed several, reports on whichever it keyed last.
    const single: LibraryRequest = {
      method: message.method,
      url: message.url,
      headers: {
        ...headerRecord(message.headers),
        "signature-input": serializeDictionary(new Map([[label, member]])),
        signature: serializeDictionary(new Map([[label, signatureMember]])),
      },
    };
    let result: boolean | null;
    try {
      const verifier = createVerifier(publicKeyOf(jwk), alg);
      result = await httpbis.verifyMessage(
        {
          keyLookup: async () => ({ id: keyid, algs: [alg], verify: verifier }),
          tolerance: skew,
          notAfter: nowSeconds,
        },
        single,
      );
    } catch (error) {
      throw invalid(
        `Signature ${label} does not verify (${error instanceof Error ? error.message : "error"})`,
      );
    }
    if (result !== true) throw invalid(`Signature ${label} does not verify`);
    verified.push({
      label,
      keyid,
      created,
      expires,
      signature: Buffer.from(signatureMember[0]).toString("base64"),
    });
  }
  return verified;
};
