import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";

import { handleBridgeMcp, type BridgeOptions } from "@/lib/bridge/http";
import { handOverClientAddress, prelude } from "@/lib/http/prelude";
import { CLIENT_ADDRESS_HEADER, clientAddressStamp } from "@/lib/rate-limit/client-address";

import { seedPlatformKey } from "../../factories";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BRIDGE_URL, serviceFetch, TEST_BASE_URL } from "./helpers";

// The mounted bridge identifies its caller by what it saw: the address the request prelude resolved for the
// bridge request (TRUSTED_PROXIES rules), handed to the bridge's calls in process, never the caller's own
// X-Forwarded-For. Here the bridge's calls reach the service from "the bridge's host" (BRIDGE_HOST, stamped as
// its socket address would be), and TRUSTED_PROXIES covers that host, as in a deployment that trusts the bridge:
// a caller rotating a spoofed X-Forwarded-For is throttled after the same count of wrong keys as a direct caller,
// and two callers through the bridge have budgets of their own.

const FAILURES = 4;
const BRIDGE_HOST = "10.9.9.9";

let agent: AgentProfileServer;

before(async () => {
  process.env.RATE_LIMIT_AUTH_FAILURES = String(FAILURES);
  process.env.TRUSTED_PROXIES = `${BRIDGE_HOST}/32`;
  await prepareTestDatabase();
  agent = await startAgentProfileServer();
});
after(async () => {
  await agent.close();
  await closeTestDatabase();
});

const inner = serviceFetch();
const options: () => BridgeOptions = () => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: agent.profileUrl,
  key: agent.key,
  // every call of the bridge arrives from the bridge's host, as our HTTP server stamps a socket's peer
  fetch: (url, init) =>
    inner(url, {
      ...init,
      headers: {
        ...Object.fromEntries(new Headers(init.headers).entries()),
        [CLIENT_ADDRESS_HEADER]: clientAddressStamp(BRIDGE_HOST),
      },
    }),
  retry: { baseDelayMs: 1, sleep: async () => {} },
});

// the mounted route's shape (app/bridge/mcp/route.ts): the bridge behind the request prelude, the caller's
// address handed over
const mounted = prelude("mcp", (request) =>
  handleBridgeMcp(request, { ...options(), callerAddress: handOverClientAddress }),
);

const wrongKey = () =>
  `acs_${randomBytes(6).toString("hex")}_${randomBytes(32).toString("base64url").slice(0, 43)}`;

let rpcId = 0;
/** search_products through the bridge from `address` with `headers`; the HTTP status and the tool error code. */
const viaBridge = async (address: string, headers: Record<string, string>) => {
  const response = await mounted(
    new Request(`${BRIDGE_URL}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        [CLIENT_ADDRESS_HEADER]: clientAddressStamp(address),
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++rpcId,
        method: "tools/call",
        params: { name: "search_products", arguments: { query: "mug" } },
      }),
    }),
    { params: Promise.resolve({}) },
  );
  const body = (await response.json()) as {
    result?: { isError?: boolean; content?: { text: string }[] };
    error?: { data?: { code?: string } };
  };
  const toolCode = body.result?.isError
    ? (JSON.parse(body.result.content?.[0]?.text ?? "{}") as { error?: { code?: string } }).error?.code
    : undefined;
  return { status: response.status, code: toolCode ?? body.error?.data?.code ?? "ok" };
};

/** How many wrong keys `send` gets refused as invalid before it is rate limited (at most `limit` tries). */
const failuresBeforeLimit = async (send: () => Promise<{ status: number; code: string }>, limit = 12) => {
  for (let i = 0; i < limit; i++) {
    const answer = await send();
    if (answer.code === "rate_limited") return i;
    assert.equal(answer.status, 401, JSON.stringify(answer));
    assert.equal(answer.code, "invalid_api_key");
  }
  return Infinity;
};

test("POST /bridge/mcp — wrong keys with a spoofed X-Forwarded-For per call are throttled after the same count as direct callers", async () => {
  let spoof = 1;
  const throughBridge = await failuresBeforeLimit(() =>
    viaBridge("198.18.7.1", { "x-api-key": wrongKey(), "x-forwarded-for": `203.0.113.${spoof++}` }),
  );
  const direct = await failuresBeforeLimit(async () => {
    const answer = await rest("POST", "/catalog/search", {
      headers: { [CLIENT_ADDRESS_HEADER]: clientAddressStamp("198.18.7.2"), "x-api-key": wrongKey() },
      body: { query: "mug" },
    });
    return { status: answer.status, code: (answer.body as { code: string }).code };
  });
  assert.equal(direct, FAILURES);
  assert.equal(throughBridge, FAILURES);
});

test("POST /bridge/mcp — two callers through the bridge have budgets of their own; the bridge's host is not charged", async () => {
  assert.equal(
    await failuresBeforeLimit(() => viaBridge("198.18.8.1", { "x-api-key": wrongKey() })),
    FAILURES,
  );
  // another caller through the same bridge: its wrong key is judged (401), not refused for the first one's
  const other = await viaBridge("198.18.8.2", { "x-api-key": wrongKey() });
  assert.deepEqual(other, { status: 401, code: "invalid_api_key" });
  const { key } = await seedPlatformKey();
  assert.deepEqual(await viaBridge("198.18.8.3", { "x-api-key": key }), { status: 200, code: "ok" });
  // and the first caller stays refused even with a handover header of its own making
  const forged = await viaBridge("198.18.8.1", {
    "x-api-key": wrongKey(),
    "x-acs-caller-handover": randomBytes(24).toString("base64url"),
  });
  assert.equal(forged.code, "rate_limited");
});
