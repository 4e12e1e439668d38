import assert from "node:assert/strict";
import { test } from "node:test";

import { type AppError } from "@/lib/core/errors";

import {
  cacheSecondsFor,
  isAcceptableRedirectUri,
  parseCimdClientId,
  resolveCimdClient,
  validateClientMetadata,
} from "./cimd";

const URL_ID = "https://agent.example/oauth/client.json";
const good = { client_id: URL_ID, client_name: "Agent", redirect_uris: ["https://agent.example/cb"] };
const isInvalidClient = (e: AppError) => e.code === "invalid_client";

test("client id shape: https with a path; loopback http only in test mode", () => {
  assert.equal(parseCimdClientId(URL_ID, { testMode: false }).href, URL_ID);
  for (const bad of [
    "http://agent.example/c.json",
    "https://agent.example",
    "https://agent.example/",
    "https://u:p@agent.example/c.json",
    "https://agent.example/c.json#x",
    "https://agent.example/a/../c.json",
    "https://AGENT.example/c.json",
    "nonsense",
  ]) {
    assert.throws(() => parseCimdClientId(bad, { testMode: false }), isInvalidClient, bad);
  }
  assert.throws(() => parseCimdClientId("http://127.0.0.1:9/c.json", { testMode: false }), isInvalidClient);
  assert.equal(parseCimdClientId("http://127.0.0.1:9/c.json", { testMode: true }).port, "9");
  assert.throws(() => parseCimdClientId("http://10.0.0.1/c.json", { testMode: true }), isInvalidClient);
});

test("document validation: client_id equals the URL, redirect_uris required, public clients only", () => {
  const ok = validateClientMetadata(URL_ID, good);
  assert.deepEqual(ok.redirectUris, ["https://agent.example/cb"]);
  assert.equal(ok.clientName, "Agent");
  assert.equal(
    validateClientMetadata(URL_ID, { ...good, client_name: undefined }).clientName,
    "agent.example",
  );
  const bad: [string, unknown][] = [
    ["mismatch", { ...good, client_id: "https://agent.example/other.json" }],
    ["no redirect_uris", { client_id: URL_ID }],
    ["empty redirect_uris", { ...good, redirect_uris: [] }],
    ["secret", { ...good, client_secret: "x" }],
    ["basic auth", { ...good, token_endpoint_auth_method: "client_secret_basic" }],
    ["implicit", { ...good, grant_types: ["implicit"] }],
    ["token response", { ...good, response_types: ["token"] }],
    ["fragment", { ...good, redirect_uris: ["https://agent.example/cb#x"] }],
    ["not an object", ["x"]],
    ["logo not a URL", { ...good, logo_uri: "javascript:alert(1)" }],
  ];
  for (const [label, doc] of bad)
    assert.throws(() => validateClientMetadata(URL_ID, doc), isInvalidClient, label);
});

test("cache lifetime honours Cache-Control, capped at 600 s", () => {
  assert.equal(cacheSecondsFor(undefined), 600);
  assert.equal(cacheSecondsFor("public, max-age=60"), 60);
  assert.equal(cacheSecondsFor("max-age=86400"), 600);
  assert.equal(cacheSecondsFor("no-store"), 0);
  assert.equal(cacheSecondsFor("no-cache, max-age=100"), 0);
  assert.equal(cacheSecondsFor("max-age=0"), 0);
});

test("resolveCimdClient: status, content type and JSON are checked; only successes are cached", async () => {
  let calls = 0;
  const respond = (status: number, type: string, body: string) => async (url: string) => {
    calls++;
    return { status, headers: { "content-type": type }, body, url };
  };
  const id = "https://agent.example/resolve.json";
  const doc = JSON.stringify({ ...good, client_id: id });
  await assert.rejects(
    resolveCimdClient(id, { testMode: false, fetchDocument: respond(404, "application/json", doc) }),
    isInvalidClient,
  );
  await assert.rejects(
    resolveCimdClient(id, { testMode: false, fetchDocument: respond(200, "text/html", doc) }),
    isInvalidClient,
  );
  await assert.rejects(
    resolveCimdClient(id, { testMode: false, fetchDocument: respond(200, "application/json", "{") }),
    isInvalidClient,
  );
  const fetchDocument = respond(200, "application/json; charset=utf-8", doc);
  assert.equal((await resolveCimdClient(id, { testMode: false, fetchDocument })).clientId, id);
  assert.equal((await resolveCimdClient(id, { testMode: false, fetchDocument })).clientId, id);
  assert.equal(calls, 4, "three failures fetched each time, then one fetch for two successful resolutions");
});

test("redirect URIs a document may register: https, loopback http, reverse-domain app schemes — nothing executable", () => {
  for (const ok of [
    "https://agent.example/cb",
    "http://127.0.0.1:8080/cb",
    "http://[::1]/cb",
    "http://localhost/cb",
    "com.example.agent:/oauth",
  ]) {
    assert.equal(isAcceptableRedirectUri(ok), true, ok);
  }
  for (const bad of [
    "javascript:alert(document.cookie)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:x",
    "file:///etc/passwd",
    "blob:https://agent.example/x",
    "http://agent.example/cb",
    "https://agent.example/cb#frag",
    "myapp:/cb",
    "not a uri",
  ]) {
    assert.equal(isAcceptableRedirectUri(bad), false, bad);
    assert.throws(
      () => validateClientMetadata(URL_ID, { ...good, redirect_uris: [bad] }),
      isInvalidClient,
      bad,
    );
  }
});
