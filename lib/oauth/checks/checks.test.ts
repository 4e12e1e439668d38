import assert from "node:assert/strict";
import { test } from "node:test";

import { type AppError } from "@/lib/core/errors";

import { isValidCodeVerifier, isValidS256Challenge, s256, verifiesChallenge } from "./pkce";
import { isRegisteredRedirectUri } from "./redirect-uri";
import { narrowScopes, parseScope, resolveBuyerScopes } from "./scope";

test("PKCE S256: the RFC 7636 Appendix B vector", () => {
  assert.equal(
    s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
});

test("PKCE: verifier format and challenge match", () => {
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  assert.equal(verifiesChallenge(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), true);
  assert.equal(verifiesChallenge(`${verifier}x`, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), false);
  // plain PKCE (challenge = verifier) never verifies
  assert.equal(verifiesChallenge(verifier, verifier), false);
  assert.equal(isValidCodeVerifier("short"), false);
  assert.equal(isValidCodeVerifier("a".repeat(129)), false);
  assert.equal(isValidCodeVerifier(`${"a".repeat(42)} `), false);
  assert.equal(isValidS256Challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), true);
  assert.equal(isValidS256Challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM="), false);
});

test("redirect URIs: exact match; loopback IP literals ignore the port; localhost does not", () => {
  const registered = [
    "https://agent.example/cb",
    "http://127.0.0.1:8080/cb",
    "http://[::1]/cb",
    "http://localhost:3000/cb",
  ];
  assert.equal(isRegisteredRedirectUri(registered, "https://agent.example/cb"), true);
  for (const bad of [
    "https://agent.example/cb/",
    "https://agent.example/cb?x=1",
    "https://agent.example/CB",
    "https://agent.example:444/cb",
    "http://agent.example/cb",
    "https://agent.example.evil/cb",
    "http://localhost:3001/cb",
    "http://127.0.0.1:9/other",
    "http://127.0.0.1:9/cb#x",
    "not a url",
  ]) {
    assert.equal(isRegisteredRedirectUri(registered, bad), false, bad);
  }
  assert.equal(isRegisteredRedirectUri(registered, "http://127.0.0.1:51234/cb"), true);
  assert.equal(isRegisteredRedirectUri(registered, "http://[::1]:4000/cb"), true);
});

test("scopes: defaults, aliases, unknown scopes, narrowing", () => {
  assert.deepEqual(resolveBuyerScopes(null), ["purchase:complete"]);
  assert.deepEqual(resolveBuyerScopes("offline_access  purchase:complete"), [
    "offline_access",
    "purchase:complete",
  ]);
  assert.deepEqual(resolveBuyerScopes("dev.ucp.shopping.checkout:manage purchase:complete"), [
    "purchase:complete",
  ]);
  assert.throws(
    () => resolveBuyerScopes("orders:read"),
    (e: AppError) => e.code === "invalid_scope",
  );
  assert.throws(
    () => parseScope('bad"scope'),
    (e: AppError) => e.code === "invalid_scope",
  );
  assert.deepEqual(narrowScopes(undefined, ["a", "b"]), ["a", "b"]);
  assert.deepEqual(narrowScopes("a", ["a", "b"]), ["a"]);
  assert.throws(
    () => narrowScopes("c", ["a", "b"]),
    (e: AppError) => e.code === "invalid_scope",
  );
});
