import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, before, describe, mock, test } from "node:test";

import { type AppError } from "@/lib/core/errors";
import { clearCimdCache, isCimdCached, resolveCimdClient } from "@/lib/oauth/cimd";

import { callApp } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { errorPageOf } from "../../helpers/oauth";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// CIMD client ids (seed §5 rule 4, DECISIONS.md B10): fetched through the guard, validated, cached ~600 s honouring
// Cache-Control, failures never cached. At the authorization endpoint every CIMD failure is an error page.

let cimd: CimdServer;
before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

let n = 0;
const path = (label: string) => `/cimd-${label}-${++n}`;

/** GET /ucp/oauth2/authorize for a client id; returns the response. */
const authorizeAs = (clientId: string, redirectUri = `${clientId}/cb`) => {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  return callApp("GET", `/ucp/oauth2/authorize?${params}`);
};

/** Our own error page, never the client's redirect_uri, showing `error`. */
const assertErrorPage = async (res: Response, error: string, label: string) => {
  assert.equal((await errorPageOf(res)).error, error, label);
};

const rejects = (clientId: string, testMode = true) =>
  assert.rejects(resolveCimdClient(clientId, { testMode }), (e: AppError) => e.code === "invalid_client");

describe("GET /ucp/oauth2/authorize with a CIMD client id", () => {
  test("a good document → consent; it is fetched once and then served from the cache", async () => {
    const p = path("good");
    const clientId = cimd.document(p, { client_name: "Good", redirect_uris: [cimd.url(`${p}/cb`)] });
    assert.equal((await authorizeAs(clientId)).status, 303);
    assert.equal((await authorizeAs(clientId)).status, 303);
    assert.equal(cimd.hits(p), 1);
    assert.equal(isCimdCached(clientId), true);
  });

  test("a redirect_uri the cached document lacks refetches it once (at most every 30 s per client)", async () => {
    const p = path("rotated");
    const oldCb = cimd.url(`${p}/cb`);
    const newCb = cimd.url(`${p}/cb2`);
    const clientId = cimd.document(p, { client_name: "Rotating", redirect_uris: [oldCb] });
    assert.equal((await authorizeAs(clientId, oldCb)).status, 303);
    assert.equal(cimd.hits(p), 1);
    // The client adds a redirect_uri: its first use is accepted through one refetch, not after the 600 s cache.
    cimd.document(p, { client_name: "Rotating", redirect_uris: [oldCb, newCb] });
    assert.equal((await authorizeAs(clientId, newCb)).status, 303);
    assert.equal(cimd.hits(p), 2);
    // A redirect_uri it never lists: refused; within 30 s of the last refetch it does not make us fetch again.
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    try {
      await assertErrorPage(
        await authorizeAs(clientId, cimd.url(`${p}/evil`)),
        "invalid_request",
        "throttled",
      );
      assert.equal(cimd.hits(p), 2);
      mock.timers.tick(31_000);
      await assertErrorPage(
        await authorizeAs(clientId, cimd.url(`${p}/evil`)),
        "invalid_request",
        "refetched",
      );
      assert.equal(cimd.hits(p), 3);
    } finally {
      mock.timers.reset();
    }
  });

  test("Cache-Control: no-store is honoured (fetched every time)", async () => {
    const p = path("nostore");
    const clientId = cimd.document(
      p,
      { redirect_uris: [cimd.url(`${p}/cb`)] },
      { "cache-control": "no-store" },
    );
    await authorizeAs(clientId);
    await authorizeAs(clientId);
    assert.equal(cimd.hits(p), 2);
  });

  test("a failure is not cached: once the document is fixed, the next request succeeds", async () => {
    const p = path("fixed");
    const clientId = cimd.url(p);
    cimd.route(p, (_req, res) => res.writeHead(500).end());
    await assertErrorPage(await authorizeAs(clientId), "invalid_client", "500");
    assert.equal(isCimdCached(clientId), false);
    cimd.document(p, { redirect_uris: [cimd.url(`${p}/cb`)] });
    assert.equal((await authorizeAs(clientId)).status, 303);
  });

  test("bad documents: huge, not JSON, wrong content type, no redirect_uris, client_id mismatch, secrets, other auth", async () => {
    const cases: [string, (clientId: string) => (req: unknown, res: ServerResponse) => void][] = [
      [
        "huge",
        (id) => (_q, r) =>
          r
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ client_id: id, redirect_uris: [`${id}/cb`], pad: "x".repeat(6000) })),
      ],
      ["not-json", () => (_q, r) => r.writeHead(200, { "content-type": "application/json" }).end("<html>")],
      [
        "text",
        (id) => (_q, r) =>
          r
            .writeHead(200, { "content-type": "text/plain" })
            .end(JSON.stringify({ client_id: id, redirect_uris: [`${id}/cb`] })),
      ],
      [
        "no-redirects",
        (id) => (_q, r) =>
          r.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ client_id: id })),
      ],
      [
        "mismatch",
        (id) => (_q, r) =>
          r
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ client_id: `${id}-other`, redirect_uris: [`${id}/cb`] })),
      ],
      [
        "secret",
        (id) => (_q, r) =>
          r
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ client_id: id, client_secret: "s", redirect_uris: [`${id}/cb`] })),
      ],
      [
        "private-key-jwt",
        (id) => (_q, r) =>
          r.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              client_id: id,
              token_endpoint_auth_method: "private_key_jwt",
              redirect_uris: [`${id}/cb`],
            }),
          ),
      ],
      [
        "implicit",
        (id) => (_q, r) =>
          r
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ client_id: id, grant_types: ["implicit"], redirect_uris: [`${id}/cb`] })),
      ],
      [
        "javascript-redirect",
        (id) => (_q, r) =>
          r
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ client_id: id, redirect_uris: ["javascript:alert(document.cookie)"] })),
      ],
    ];
    for (const [label, handler] of cases) {
      const p = path(label);
      const clientId = cimd.url(p);
      cimd.route(p, handler(clientId));
      await assertErrorPage(await authorizeAs(clientId), "invalid_client", label);
      assert.equal(isCimdCached(clientId), false, `${label} is not cached`);
    }
  });

  test("redirects: up to 3 followed (client_id stays the original URL), a 4th refused", async () => {
    const target = path("target");
    const hops = (count: number, label: string) => {
      const first = path(label);
      let current = first;
      for (let i = 0; i < count; i++) {
        const next = i === count - 1 ? target : path(`${label}-hop`);
        const from = current;
        cimd.route(from, (_q, r) => r.writeHead(302, { location: next }).end());
        current = next;
      }
      return first;
    };
    const three = hops(3, "three");
    const threeId = cimd.url(three);
    cimd.route(target, (_q, r) =>
      r
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ client_id: threeId, redirect_uris: [`${threeId}/cb`] })),
    );
    assert.equal((await authorizeAs(threeId)).status, 303);
    const four = cimd.url(hops(4, "four"));
    await assertErrorPage(await authorizeAs(four), "invalid_client", "4 redirects");
  });

  test("a slow document times out as invalid_client", { timeout: 15_000 }, async () => {
    const p = path("slow");
    cimd.route(p, () => undefined);
    await assertErrorPage(await authorizeAs(cimd.url(p)), "invalid_client", "slow");
  });

  test("malformed and unknown client ids get an error page", async () => {
    for (const id of [
      "not-a-url",
      "ocl_registered_but_not_here",
      "https://example.com",
      `${cimd.origin}/x#frag`,
      `http://user:pw@127.0.0.1/x`,
      `${cimd.origin}/a/../b`,
      "ftp://127.0.0.1/x",
      "http://192.0.2.1/x",
    ]) {
      await assertErrorPage(await authorizeAs(id, "http://127.0.0.1/cb"), "invalid_client", id);
    }
    await assertErrorPage(
      await callApp("GET", "/ucp/oauth2/authorize?response_type=code"),
      "invalid_request",
      "no client_id",
    );
  });
});

describe("live mode (test mode off)", () => {
  test("http and private addresses are refused before any fetch", async () => {
    clearCimdCache();
    const p = path("live");
    const clientId = cimd.document(p, { redirect_uris: [cimd.url(`${p}/cb`)] });
    await rejects(clientId, false);
    await rejects("https://127.0.0.1/client.json", false);
    await rejects("https://10.0.0.1/client.json", false);
    assert.equal(cimd.hits(p), 0);
    // the same document is fine in test mode
    assert.equal((await resolveCimdClient(clientId, { testMode: true })).clientId, clientId);
  });
});
