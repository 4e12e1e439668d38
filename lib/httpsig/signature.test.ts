import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createPublicKey, generateKeyPairSync, type JsonWebKey } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

import { createSigner, createVerifier, httpbis } from "http-message-signatures";

import { AppError } from "@/lib/core/errors";
import { WEBHOOK_COMPONENTS } from "@/lib/webhooks/sign-webhook";

import { checkContentDigest, contentDigest } from "./content-digest";
import { algorithmForJwk, signRequest, verifyRequestSignature, type HttpMessage } from "./signature";

// RFC 9421 Appendix B vectors (vendored from ../shared/vectors into e2e/vectors; see its `source` block) and
// the UCP rules of our wrapper. The vectors pin the library and our key handling to the RFC's exact bytes.

type VectorCase = {
  id: string;
  message: string;
  alg: string;
  keyid: string;
  label: string;
  coveredComponents: string[];
  signatureInputHeader: string;
  signatureHeader: string;
  signatureBase: string;
  signatureB64: string;
};
type VectorMessage = {
  headers: [string, string][];
  body: string;
  method?: string;
  url?: string;
  status?: number;
};
type Vectors = {
  keys: Record<string, { jwk?: JsonWebKey; secretBase64?: string }>;
  messages: Record<string, VectorMessage>;
  cases: VectorCase[];
};

const VECTORS = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../../e2e/vectors/rfc9421-appendix-b.json"), "utf8"),
) as Vectors;
const vectorCase = (id: string): VectorCase => VECTORS.cases.find((c) => c.id === id)!;
const headersOf = (m: VectorMessage): Record<string, string> =>
  Object.fromEntries(m.headers.map(([k, v]) => [k.toLowerCase(), v]));
const libraryMessage = (m: VectorMessage) =>
  m.status !== undefined
    ? { status: m.status, headers: headersOf(m) }
    : { method: m.method!, url: m.url!, headers: headersOf(m) };
const paramsOf = (c: VectorCase): string => c.signatureInputHeader.slice(c.label.length + 1);
const publicJwk = ({ d: _d, ...pub }: JsonWebKey): JsonWebKey => pub;

/** The vector's own request as our HttpMessage, with its Signature-Input/Signature attached. */
const signedVectorRequest = (c: VectorCase): HttpMessage => {
  const m = VECTORS.messages[c.message]!;
  const headers = new Headers(headersOf(m));
  headers.set("signature-input", c.signatureInputHeader);
  headers.set("signature", c.signatureHeader);
  return { method: m.method!, url: m.url!, headers, body: m.body };
};

const expectCode = async (run: () => Promise<unknown>, code: string, message?: RegExp): Promise<void> => {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
};

describe("RFC 9421 Appendix B", () => {
  for (const c of VECTORS.cases) {
    test(`${c.id}: the signature base is exactly the RFC's`, () => {
      const m = VECTORS.messages[c.message]!;
      const base = httpbis.formatSignatureBase(
        httpbis.createSignatureBase({ fields: c.coveredComponents }, libraryMessage(m) as never),
      );
      const full = `${base ? `${base}\n` : ""}"@signature-params": ${paramsOf(c)}`;
      assert.equal(full, c.signatureBase);
    });
  }

  test("B.2.4 (ecdsa-p256-sha256 response) verifies with the key our JWK mapping picks", async () => {
    const c = vectorCase("B.2.4");
    const jwk = publicJwk(VECTORS.keys[c.keyid]!.jwk!);
    const alg = algorithmForJwk(jwk);
    assert.equal(alg, "ecdsa-p256-sha256");
    const m = VECTORS.messages[c.message]!;
    const verify = createVerifier(createPublicKey({ key: jwk, format: "jwk" }), alg!);
    const message = {
      status: m.status!,
      headers: { ...headersOf(m), "signature-input": c.signatureInputHeader, signature: c.signatureHeader },
    };
    const ok = await httpbis.verifyMessage(
      { keyLookup: async () => ({ id: c.keyid, algs: [alg!], verify }), notAfter: 1618884473 + 60 },
      message,
    );
    assert.equal(ok, true);
    // One flipped bit in the signature and it must fail.
    const bad = Buffer.from(c.signatureB64, "base64");
    bad[0]! ^= 1;
    const tampered = {
      ...message,
      headers: { ...message.headers, signature: `${c.label}=:${bad.toString("base64")}:` },
    };
    assert.notEqual(
      await httpbis.verifyMessage(
        { keyLookup: async () => ({ id: c.keyid, algs: [alg!], verify }), notAfter: 1618884473 + 60 },
        tampered,
      ),
      true,
    );
  });

  test("B.2.6 (ed25519 request) verifies through verifyRequestSignature; a changed header does not", async () => {
    const c = vectorCase("B.2.6");
    const jwk = publicJwk(VECTORS.keys[c.keyid]!.jwk!);
    const options = {
      lookupKey: async (kid: string) => (kid === c.keyid ? jwk : null),
      now: new Date(1618884473_000),
      requiredComponents: [],
      requireDigest: false,
    };
    const verified = await verifyRequestSignature(signedVectorRequest(c), options);
    assert.deepEqual(
      verified?.map((v) => [v.label, v.keyid, v.created]),
      [[c.label, c.keyid, 1618884473]],
    );
    const changed = signedVectorRequest(c);
    changed.headers.set("date", "Tue, 20 Apr 2021 02:07:56 GMT");
    await expectCode(() => verifyRequestSignature(changed, options), "signature_invalid");
  });

  test("B.2.6 bytes are reproduced by signRequest (Ed25519 is deterministic)", async () => {
    const c = vectorCase("B.2.6");
    const headers = await signRequest(
      { ...signedVectorRequest(c), headers: new Headers(headersOf(VECTORS.messages[c.message]!)) },
      {
        privateJwk: VECTORS.keys[c.keyid]!.jwk!,
        keyid: c.keyid,
        created: new Date(1618884473_000),
        label: c.label,
        components: c.coveredComponents.map((x) => JSON.parse(x) as string),
      },
    );
    assert.equal(headers.get("signature"), c.signatureHeader);
    assert.equal(headers.get("signature-input"), c.signatureInputHeader);
  });

  test("B.2.5 bytes (hmac-sha256) are reproduced by the library we wrap", async () => {
    const c = vectorCase("B.2.5");
    const m = VECTORS.messages[c.message]!;
    const secret = Buffer.from(VECTORS.keys[c.keyid]!.secretBase64!, "base64");
    const signed = await httpbis.signMessage(
      {
        key: createSigner(secret, "hmac-sha256", c.keyid),
        name: c.label,
        fields: c.coveredComponents.map((x) => JSON.parse(x) as string),
        params: ["created", "keyid"],
        paramValues: { created: new Date(1618884473_000) },
      },
      { method: m.method!, url: m.url!, headers: headersOf(m) },
    );
    assert.equal(new Headers(signed.headers as Record<string, string>).get("signature"), c.signatureHeader);
  });
});

describe("UCP request signatures (ES256)", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const privateJwk = { ...privateKey.export({ format: "jwk" }), kid: "agent-1" };
  const pubJwk = publicKey.export({ format: "jwk" });
  const now = new Date("2026-11-22T02:00:00Z");
  const body = '{"line_items":[{"item":{"id":"var_1"},"quantity":1}]}';
  const base = (): HttpMessage => ({
    method: "POST",
    url: "https://shop.example/s/alpine/carts?x=1",
    headers: new Headers({
      "content-type": "application/json",
      "ucp-agent": 'profile="https://agent.example/.well-known/ucp"',
      "idempotency-key": "4f1c7a52-1f1e-4d1e-9b7a-8a7f0a2b3c4d",
    }),
    body,
  });
  const options = (lookup: Record<string, JsonWebKey> = { "agent-1": pubJwk }) => ({
    lookupKey: async (kid: string) => lookup[kid] ?? null,
    now,
    requireCreated: true,
    maxAgeSeconds: 300,
  });
  const signed = async (
    message = base(),
    extra: Partial<Parameters<typeof signRequest>[1]> = {},
  ): Promise<HttpMessage> => ({
    ...message,
    headers: await signRequest(message, { privateJwk, keyid: "agent-1", created: now, ...extra }),
  });

  test("covers the UCP component set, and verifies", async () => {
    const message = await signed();
    assert.match(
      message.headers.get("signature-input")!,
      /^sig1=\("@method" "@authority" "@path" "@query" "ucp-agent" "idempotency-key" "content-digest" "content-type"\);created=\d+;keyid="agent-1"$/,
    );
    assert.equal(message.headers.get("content-digest"), contentDigest(body));
    const verified = await verifyRequestSignature(message, options());
    assert.equal(verified?.[0]?.keyid, "agent-1");
  });

  test("an unsigned request is null, not an error", async () => {
    assert.equal(await verifyRequestSignature(base(), options()), null);
  });

  test("a body that differs from its digest → digest_mismatch", async () => {
    const message = await signed();
    await expectCode(
      () => verifyRequestSignature({ ...message, body: body.replace("1}", "2}") }, options()),
      "digest_mismatch",
    );
  });

  test("a body without Content-Digest → digest_mismatch", async () => {
    const message = await signed();
    message.headers.delete("content-digest");
    await expectCode(() => verifyRequestSignature(message, options()), "digest_mismatch");
  });

  test("a keyid not in the profile → key_not_found", async () => {
    const message = await signed();
    await expectCode(() => verifyRequestSignature(message, options({})), "key_not_found");
  });

  test("an alg parameter that does not match the key → algorithm_unsupported", async () => {
    const message = await signed();
    const input = message.headers.get("signature-input")!;
    message.headers.set("signature-input", `${input};alg="ed25519"`);
    await expectCode(() => verifyRequestSignature(message, options()), "algorithm_unsupported");
  });

  test("an RSA key in the profile → algorithm_unsupported", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ format: "jwk" });
    const message = await signed();
    await expectCode(
      () => verifyRequestSignature(message, options({ "agent-1": rsa })),
      "algorithm_unsupported",
    );
  });

  test("expired, too old or future signatures → signature_invalid", async () => {
    const expired = await signed(base(), {
      expires: new Date(now.getTime() - 120_000),
      created: new Date(now.getTime() - 200_000),
    });
    await expectCode(() => verifyRequestSignature(expired, options()), "signature_invalid", /expired/);
    const old = await signed(base(), { created: new Date(now.getTime() - 600_000) });
    await expectCode(() => verifyRequestSignature(old, options()), "signature_invalid", /too old/);
    const future = await signed(base(), { created: new Date(now.getTime() + 600_000) });
    await expectCode(() => verifyRequestSignature(future, options()), "signature_invalid", /future/);
  });

  test("no created time: verifies by default (RFC 9421, UCP: optional), refused only when required", async () => {
    const message = await signed(base(), { created: undefined });
    assert.doesNotMatch(message.headers.get("signature-input")!, /created/);
    const lenient = { ...options(), requireCreated: false };
    const verified = await verifyRequestSignature(message, lenient);
    assert.equal(verified?.[0]?.created, null);
    await expectCode(() => verifyRequestSignature(message, options()), "signature_invalid", /created/);
  });

  test("the key is looked up first: an unknown keyid is key_not_found even when created is missing or stale", async () => {
    const none = await signed(base(), { created: undefined, keyid: "nobody" });
    await expectCode(() => verifyRequestSignature(none, options()), "key_not_found");
    const stale = await signed(base(), { created: new Date(now.getTime() - 600_000), keyid: "nobody" });
    await expectCode(() => verifyRequestSignature(stale, options()), "key_not_found");
  });

  test("no created time when the tier requires one → signature_invalid", async () => {
    const message = await signed();
    message.headers.set(
      "signature-input",
      message.headers.get("signature-input")!.replace(/;created=\d+/, ""),
    );
    await expectCode(() => verifyRequestSignature(message, options()), "signature_invalid", /created/);
  });

  test("a signature that leaves out a required component → signature_invalid", async () => {
    const message = await signed(base(), { components: ["@method", "@authority", "@path"] });
    await expectCode(() => verifyRequestSignature(message, options()), "signature_invalid", /does not cover/);
  });

  test("a tampered covered header → signature_invalid", async () => {
    const message = await signed();
    message.headers.set("idempotency-key", "5f1c7a52-1f1e-4d1e-9b7a-8a7f0a2b3c4d");
    await expectCode(() => verifyRequestSignature(message, options()), "signature_invalid");
  });

  test("two signatures, the bad one first → signature_invalid (each label must verify)", async () => {
    // The library, handed both, answers for the last label it can key: a good last one would hide a bad first.
    const good = await signed();
    const other = await signed(base(), { label: "sig0" });
    const bad = Buffer.from(/sig0=:(.+):/.exec(other.headers.get("signature")!)![1]!, "base64");
    bad[5]! ^= 1;
    good.headers.set(
      "signature-input",
      `${other.headers.get("signature-input")!}, ${good.headers.get("signature-input")!}`,
    );
    good.headers.set("signature", `sig0=:${bad.toString("base64")}:, ${good.headers.get("signature")!}`);
    await expectCode(() => verifyRequestSignature(good, options()), "signature_invalid", /sig0/);
  });

  test("an unquoted keyid (a token) → signature_invalid", async () => {
    const message = await signed();
    message.headers.set(
      "signature-input",
      message.headers.get("signature-input")!.replace('keyid="agent-1"', "keyid=agent-1"),
    );
    await expectCode(() => verifyRequestSignature(message, options()), "signature_invalid", /quoted string/);
  });

  test("Signature without Signature-Input → signature_missing", async () => {
    const message = await signed();
    message.headers.delete("signature-input");
    await expectCode(() => verifyRequestSignature(message, options()), "signature_missing");
  });
});

describe("Content-Digest", () => {
  test("sha-256 and sha-512 over the raw bytes; unknown algorithms alone are unsupported", () => {
    const body = '{"hello": "world"}';
    assert.equal(checkContentDigest(contentDigest(body), body), "match");
    assert.equal(checkContentDigest(contentDigest(body, "sha-512"), body), "match");
    assert.equal(checkContentDigest(contentDigest(body), `${body} `), "mismatch");
    assert.equal(checkContentDigest("md5=:AAAA:", body), "unsupported");
    assert.equal(checkContentDigest("sha-256=notbytes", body), "malformed");
    // RFC 9530 §B.1's example: sha-256 of {"hello": "world"}
    assert.equal(contentDigest(body), "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:");
  });
});

describe("our published vectors (e2e/vectors/acs-signatures.json, docs/webhooks.md)", () => {
  type Signed = { method: string; url: string; headers: Record<string, string>; body: string };
  type OurVectors = {
    created: string;
    keys: Record<"store" | "agent", { kid: string; publicJwk: JsonWebKey }>;
    webhook: Signed;
    request: Signed;
  };
  const file = path.join(import.meta.dirname, "../../e2e/vectors/acs-signatures.json");
  const ours = JSON.parse(readFileSync(file, "utf8")) as OurVectors;
  const asMessage = (v: Signed): HttpMessage => ({ ...v, headers: new Headers(v.headers) });
  const keyOf = (who: "store" | "agent") => async (kid: string) =>
    kid === ours.keys[who].kid ? ours.keys[who].publicJwk : null;
  const now = new Date(ours.created);

  test("the signed webhook verifies with the store key and covers the webhook components", async () => {
    const verified = await verifyRequestSignature(asMessage(ours.webhook), {
      lookupKey: keyOf("store"),
      now,
      requireCreated: true,
      requiredComponents: [...WEBHOOK_COMPONENTS],
    });
    assert.equal(verified?.[0]?.keyid, ours.keys.store.kid);
    const tampered = { ...asMessage(ours.webhook), body: ours.webhook.body.replace("USD", "EUR") };
    await expectCode(
      () => verifyRequestSignature(tampered, { lookupKey: keyOf("store"), now }),
      "digest_mismatch",
    );
  });

  test("the signed request verifies with the agent key under the signed-tier rules", async () => {
    const verified = await verifyRequestSignature(asMessage(ours.request), {
      lookupKey: keyOf("agent"),
      now,
      requireCreated: true,
      maxAgeSeconds: 300,
    });
    assert.equal(verified?.[0]?.keyid, ours.keys.agent.kid);
  });

  test("the docs' self-contained receiver example accepts the webhook vector and rejects a tampered one", () => {
    const script = path.join(import.meta.dirname, "../../docs/examples/verify-webhook.mjs");
    const out = JSON.parse(execFileSync(process.execPath, [script, file], { encoding: "utf8" })) as {
      good: { ok: boolean };
      tampered: { ok: boolean };
    };
    assert.deepEqual([out.good.ok, out.tampered.ok], [true, false]);
  });
});
