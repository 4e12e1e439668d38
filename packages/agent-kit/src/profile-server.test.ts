import assert from "node:assert/strict";
import { test } from "node:test";

import { CompactSign, compactVerify, importJWK } from "jose";

import { startAgentProfileServer } from "./profile-server.js";

// The agent profile server publishes a valid platform profile with its generated key (public half only) and the
// capabilities card completion needs, and its webhook receiver answers 2xx and keeps every delivery.

test("profile: UCP version, AP2 capability, the order webhook URL, the public key only; the private key signs for it", async () => {
  const agent = await startAgentProfileServer();
  try {
    const response = await fetch(agent.profileUrl);
    assert.equal(response.status, 200);
    const profile = (await response.json()) as {
      ucp: {
        version: string;
        capabilities: Record<string, { version: string; config?: { webhook_url?: string } }[]>;
      };
      signing_keys: Record<string, string>[];
    };
    assert.equal(profile.ucp.version, "2026-04-08");
    assert.ok(profile.ucp.capabilities["dev.ucp.shopping.ap2_mandate"]);
    assert.ok(profile.ucp.capabilities["dev.ucp.shopping.checkout"]);
    assert.equal(
      profile.ucp.capabilities["dev.ucp.shopping.order"]?.[0]?.config?.webhook_url,
      agent.webhookUrl,
    );
    assert.equal(profile.signing_keys.length, 1);
    const published = profile.signing_keys[0]!;
    assert.deepEqual(
      [published.kid, published.kty, published.crv, published.alg],
      [agent.key.kid, "EC", "P-256", "ES256"],
    );
    assert.equal(published.d, undefined, "the private part is never published");
    const jws = await new CompactSign(new TextEncoder().encode("x"))
      .setProtectedHeader({ alg: "ES256" })
      .sign(await importJWK(agent.key.privateJwk, "ES256"));
    await compactVerify(jws, await importJWK(published, "ES256"));
  } finally {
    await agent.close();
  }
});

test("webhook receiver: 200 for a delivery, the raw body and headers kept; other paths 404", async () => {
  const received: string[] = [];
  const agent = await startAgentProfileServer({ onWebhook: (w) => received.push(w.body) });
  try {
    const body = '{"id":"ord_1", "event":"order.created"}';
    const delivered = await fetch(agent.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": "wh_1" },
      body,
    });
    assert.equal(delivered.status, 200);
    assert.equal(agent.webhooks.length, 1);
    assert.equal(agent.webhooks[0]?.body, body);
    assert.equal(agent.webhooks[0]?.headers["webhook-id"], "wh_1");
    assert.deepEqual(received, [body]);
    assert.equal((await fetch(agent.profileUrl.replace("/.well-known/ucp", "/nope"))).status, 404);
  } finally {
    await agent.close();
  }
});

test("waitForWebhook: a delivery already received, one arriving later, or null after the timeout", async () => {
  const agent = await startAgentProfileServer();
  try {
    const post = (body: string) => fetch(agent.webhookUrl, { method: "POST", body });
    await post('{"id":"ord_early"}');
    assert.equal(
      (await agent.waitForWebhook((w) => w.body.includes("ord_early"), 10))?.body,
      '{"id":"ord_early"}',
    );
    const later = agent.waitForWebhook((w) => w.body.includes("ord_late"), 5_000);
    await post('{"id":"ord_other"}');
    await post('{"id":"ord_late"}');
    assert.equal((await later)?.body, '{"id":"ord_late"}');
    const started = Date.now();
    assert.equal(await agent.waitForWebhook((w) => w.body.includes("never"), 50), null);
    assert.ok(Date.now() - started >= 45);
  } finally {
    await agent.close();
  }
});
