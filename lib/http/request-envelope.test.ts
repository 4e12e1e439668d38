import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import {
  assertIdempotencyKey,
  echoableRequestId,
  readRequestEnvelope,
  readUcpAgent,
} from "./request-envelope";

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return "none";
};
const agent = (value: string) => new Headers({ "ucp-agent": value });

test("UCP-Agent: a quoted https profile parses; version defaults to ours", () => {
  assert.deepEqual(readUcpAgent(agent('profile="https://a.example/.well-known/ucp"')), {
    agentProfile: "https://a.example/.well-known/ucp",
    ucpVersion: "2026-04-08",
  });
});

test("UCP-Agent: other members and parameters are tolerated; version and ucp-version are read", () => {
  const h = agent('profile="https://a.example/p";x=1, version="2026-04-08", other=?1');
  assert.equal(readUcpAgent(h).ucpVersion, "2026-04-08");
  assert.equal(
    readUcpAgent(agent('profile="https://a.example/p", ucp-version="2026-04-08"')).ucpVersion,
    "2026-04-08",
  );
});

test("UCP-Agent error codes", () => {
  assert.equal(
    codeOf(() => readUcpAgent(new Headers())),
    "missing_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent("  "))),
    "missing_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="x'))),
    "invalid_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent("profile=token"))),
    "invalid_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('version="2026-04-08"'))),
    "invalid_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="https://a/p", version=2026'))),
    "invalid_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="https://a/p", version="April"'))),
    "invalid_ucp_agent",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="https://a/p", version="2027-01-01"'))),
    "version_unsupported",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="http://a.example/p"'))),
    "invalid_profile_url",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="https://u:p@a.example/p"'))),
    "invalid_profile_url",
  );
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="relative/path"'))),
    "invalid_profile_url",
  );
});

test("UCP-Agent: http is allowed on loopback hosts only", () => {
  for (const host of ["127.0.0.1:8080", "localhost", "[::1]:9"]) {
    assert.equal(
      codeOf(() => readUcpAgent(agent(`profile="http://${host}/p"`))),
      "none",
      host,
    );
  }
  assert.equal(
    codeOf(() => readUcpAgent(agent('profile="http://127.example/p"'))),
    "invalid_profile_url",
  );
});

test("Request-Id is checked before UCP-Agent", () => {
  assert.equal(
    codeOf(() => readRequestEnvelope(new Headers())),
    "missing_request_id",
  );
  assert.equal(
    codeOf(() => readRequestEnvelope(new Headers({ "request-id": "r" }))),
    "missing_ucp_agent",
  );
});

test("echoableRequestId refuses values unsafe to reflect", () => {
  assert.equal(echoableRequestId(new Headers({ "request-id": " abc-1 " })), "abc-1");
  assert.equal(echoableRequestId(new Headers({ "request-id": "a b" })), null);
  assert.equal(echoableRequestId(new Headers({ "request-id": "x".repeat(201) })), null);
});

test("idempotency keys: 1-255 visible ASCII", () => {
  assert.equal(assertIdempotencyKey(" 6f1c-uuid ", "k"), "6f1c-uuid");
  assert.equal(
    codeOf(() => assertIdempotencyKey("", "k")),
    "invalid_request",
  );
  assert.equal(
    codeOf(() => assertIdempotencyKey("with space", "k")),
    "invalid_request",
  );
  assert.equal(
    codeOf(() => assertIdempotencyKey("k".repeat(256), "k")),
    "invalid_request",
  );
});
