import assert from "node:assert/strict";
import { test } from "node:test";

import {
  knownBytes,
  peekBodyText,
  readBody,
  requestOf,
  responseOf,
  withHeadersOf,
  withHeadersSet,
} from "./known-body";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

test("a Response built from a body gives that body to its readers, even once its own stream is read", async () => {
  const response = responseOf('{"ok":"é"}', { status: 201, headers: { "content-type": "application/json" } });
  assert.equal(await peekBodyText(response), '{"ok":"é"}');
  assert.equal(response.bodyUsed, false, "peeking leaves it readable");
  assert.equal(await response.text(), '{"ok":"é"}');
  // its stream is used now: the known body is what readers get
  assert.equal(text(await readBody(response)), '{"ok":"é"}');
  const bytes = new TextEncoder().encode("bytes");
  assert.equal(await readBody(responseOf(bytes, {})), bytes);
});

test("other headers keep the status, status text and body, known or not", async () => {
  const headers = new Headers({ "x-added": "1" });
  const known = withHeadersOf(responseOf("known", { status: 202, statusText: "Accepted" }), headers);
  assert.deepEqual([known.status, known.statusText, known.headers.get("x-added")], [202, "Accepted", "1"]);
  assert.equal(await known.text(), "known");
  assert.equal(text(await readBody(known)), "known", "still known after the copy");
  const streamed = withHeadersOf(new Response("streamed", { status: 404 }), headers);
  assert.deepEqual([streamed.status, streamed.headers.get("x-added")], [404, "1"]);
  assert.equal(await streamed.text(), "streamed");
});

test("headers set in place on a Response we built; on a copy when its headers are immutable", async () => {
  const ours = responseOf("ours", { status: 201, headers: { "x-kept": "k", "x-over": "old" } });
  const same = withHeadersSet(ours, [
    ["x-over", "new"],
    ["x-added", "1"],
  ]);
  assert.equal(same, ours, "no new Response");
  assert.deepEqual(
    [same.headers.get("x-kept"), same.headers.get("x-over"), same.headers.get("x-added")],
    ["k", "new", "1"],
  );
  assert.equal(await same.text(), "ours");
  const redirect = Response.redirect("https://example.test/next", 303);
  const copied = withHeadersSet(redirect, new Headers({ "request-id": "r1" }));
  assert.notEqual(copied, redirect);
  assert.deepEqual(
    [copied.status, copied.headers.get("location"), copied.headers.get("request-id")],
    [303, "https://example.test/next", "r1"],
  );
  assert.equal(redirect.headers.get("request-id"), null);
});

test("a body not known is read from the stream (peeking through a clone)", async () => {
  const response = new Response("plain");
  assert.equal(await peekBodyText(response), "plain");
  assert.equal(response.bodyUsed, false);
  assert.equal(text(await readBody(response)), "plain");
  assert.equal(response.bodyUsed, true);
});

test("the registry is the process's (globalThis), so another copy of this module reads the same bodies", () => {
  const response = responseOf("shared", {});
  const registry = (globalThis as Record<symbol, unknown>)[Symbol.for("agent-commerce.known-bodies")];
  assert.ok(registry instanceof WeakMap && registry.get(response) === "shared");
});

test("a Request built from bytes gives them to its body parser; one built otherwise has none known", async () => {
  const bytes = new TextEncoder().encode('{"line_items":[]}');
  const request = requestOf("http://127.0.0.1:3000/carts", { method: "POST" }, bytes);
  assert.equal(knownBytes(request), bytes);
  assert.equal(await request.text(), '{"line_items":[]}', "its own stream carries the same bytes");
  assert.equal(text(await readBody(request)), '{"line_items":[]}');
  assert.equal(
    knownBytes(new Request("http://127.0.0.1:3000/carts", { method: "POST", body: "x" })),
    undefined,
  );
});
