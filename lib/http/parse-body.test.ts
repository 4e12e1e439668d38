import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";
import { requestOf } from "@/lib/core/known-body";

import { parseJsonBody } from "./parse-body";

const post = (
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = { "content-type": "application/json" },
) => new Request("http://x/", { method: "POST", body, headers, duplex: "half" } as RequestInit);

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "none",
    (e: unknown) => (e instanceof AppError ? e.code : String(e)),
  );

test("parses JSON, accepts +json media types, empty body is undefined", async () => {
  assert.deepEqual(await parseJsonBody(post('{"a":1}')), { a: 1 });
  assert.deepEqual(await parseJsonBody(post("[1]", { "content-type": "application/merge-patch+json" })), [1]);
  assert.equal(await parseJsonBody(post("")), undefined);
});

test("wrong content type, malformed JSON", async () => {
  assert.equal(
    await codeOf(parseJsonBody(post('{"a":1}', { "content-type": "text/plain" }))),
    "unsupported_media_type",
  );
  assert.equal(await codeOf(parseJsonBody(post("{a:1}"))), "malformed_json");
});

test("over the limit: refused by Content-Length, and by counting a streamed body without a length", async () => {
  assert.equal(await codeOf(parseJsonBody(post("x".repeat(11)), 10)), "payload_too_large");
  let pulls = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      controller.enqueue(new Uint8Array(64 * 1024));
    },
  });
  assert.equal(await codeOf(parseJsonBody(post(endless), 1024 * 1024)), "payload_too_large");
  assert.ok(pulls <= 20, `stopped reading early (${pulls} chunks)`);
});

test("a body the HTTP server read already is parsed from its bytes, under the same limit and checks", async () => {
  const read = (text: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
    requestOf("http://x/", { method: "POST", headers }, new TextEncoder().encode(text));
  const request = read('{"a":1}');
  // its stream is used already: only the known bytes can give the value
  await request.arrayBuffer();
  assert.deepEqual(await parseJsonBody(request), { a: 1 });
  assert.equal(await codeOf(parseJsonBody(read('{"a":1}'), 5)), "payload_too_large");
  assert.equal(await codeOf(parseJsonBody(read("{a:1}"))), "malformed_json");
  assert.equal(
    await codeOf(parseJsonBody(read('{"a":1}', { "content-type": "text/plain" }))),
    "unsupported_media_type",
  );
});
