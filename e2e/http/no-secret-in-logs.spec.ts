import { spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect, test } from "@playwright/test";
import type { JWK } from "jose";

import { mandateTerms } from "../../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../../lib/mandates/sign-checkout-mandate";
import { seedId } from "../../prisma/seed/seed-ids";
import { findFreePort } from "../../scripts/lib/free-port";
import { REPO_ROOT } from "../../scripts/lib/paths";
import { runAdminProcess, startServedApp, type ServedApp } from "../../scripts/lib/served-app";
import { withMandateKey, withOrderWebhook } from "../helpers/card-completion";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

// No secret in logs: a production deployment (NODE_ENV=production, SEED_DEMO=1 on an empty embedded database) is set
// up and served as its own processes, exactly as an operator runs them; the run issues a platform API key and an
// OAuth client (admin CLI, before the server opens the database), sets a store's Stripe keys and webhook secret,
// gets an OAuth access token, places a card order (webhook delivered by the in-server worker), starts a 3-D Secure
// payment (a pay link), and tries wrong keys, secrets and tokens. Then every secret the run created or sent is
// looked for in everything the set-up and the server (with its Stripe sandbox) printed: none may appear.

const STORE = "hearth-and-table";
const OTHER_STORE = "urban-thread-apparel";

test.describe.configure({ mode: "serial" });

/** A checkout response: whatever the mandate terms read from it (the full response carries them), and the rest. */
type Checkout = Parameters<typeof mandateTerms>[0] & {
  status: string;
  continue_url?: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
};

/** `tsx scripts/setup.ts` as its own process (what `npm start` runs first); its output is part of the log. */
const runSetup = (env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(
      path.join(REPO_ROOT, "node_modules/.bin/tsx"),
      ["--conditions=react-server", "scripts/setup.ts"],
      { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });

let dir = "";
let service: ServedApp | undefined;
let receiver: WebhookReceiver | undefined;
let profileServer: Server | undefined;

test.afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill("SIGTERM");
    await service.exited;
  }
  profileServer?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const STORE_KEYRING = `k1:${randomBytes(32).toString("base64")}`;

test("a production run prints none of the secrets it created or received", async () => {
  test.setTimeout(180_000);
  dir = mkdtempSync(path.join(tmpdir(), "acs-log-scan-"));
  const env: Record<string, string | undefined> = {
    NODE_ENV: "production",
    SEED_DEMO: "1",
    PGLITE_DIR: path.join(dir, "pglite"),
    DEMO_KEY_FILE: path.join(dir, "demo-platform-key.json"),
    DATABASE_URL: undefined,
    STRIPE_SANDBOX_URL: undefined, // serve.ts starts its own sandbox: its output is part of the log too
    OUTBOUND_ALLOW_PRIVATE: "1", // this test's agent and receiver are on loopback
    WEBHOOK_WORKER: "on",
    // production seals stores' Stripe secrets with the operator's keyring (none is made up in production)
    STORE_SECRETS_KEY: STORE_KEYRING,
  };
  const processEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete processEnv[name];
    else processEnv[name] = value;
  }

  // ── set-up and the operator's secrets (the admin CLI needs the embedded database before the server holds it)
  const setup = await runSetup(processEnv);
  expect(setup.code, setup.output).toBe(0);
  expect(setup.output).toContain("Seeded 5 stores");
  expect(existsSync(env.DEMO_KEY_FILE!), "production mints no demo key").toBe(false);

  const keyRun = await runAdminProcess(
    ["create-api-key", "--name", "log-scan", "--permissions", "purchase:complete,orders:read", "--json"],
    env,
  );
  expect(keyRun.code, keyRun.output).toBe(0);
  const apiKey = (JSON.parse(keyRun.output.trim().split("\n").pop()!) as { key: string }).key;
  const clientRun = await runAdminProcess(
    ["create-oauth-client", "--name", "log-scan", "--scopes", "orders:read", "--json"],
    env,
  );
  expect(clientRun.code, clientRun.output).toBe(0);
  const client = JSON.parse(clientRun.output.trim().split("\n").pop()!) as {
    clientId: string;
    clientSecret: string;
  };
  const stripeSecretKey = `sk_live_${randomBytes(16).toString("hex")}`;
  const stripeWebhookSecret = `whsec_${randomBytes(24).toString("base64url").replace(/[-_]/g, "A")}`;
  const stripeKeysRun = await runAdminProcess(
    [
      "set-stripe-keys",
      "--store",
      OTHER_STORE,
      "--secret-key",
      stripeSecretKey,
      "--webhook-secret",
      stripeWebhookSecret,
    ],
    env,
  );
  expect(stripeKeysRun.code, stripeKeysRun.output).toBe(0);

  // ── the server
  service = await startServedApp({ port: await findFreePort(), args: ["--no-setup"], env });
  const base = service.baseUrl;
  expect(service.output()).toContain(
    "Outbound fetches (agent profiles, CIMD, webhooks): private and loopback targets allowed for test-mode stores (OUTBOUND_ALLOW_PRIVATE=1)",
  );
  expect(service.output()).not.toContain("Demo platform key");

  // the agent: a profile with our mandate key and an order webhook_url on the receiver
  receiver = await startWebhookReceiver();
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = "log-scan-agent";
  const demo = (await (await fetch(`${base}/demo/agent/.well-known/ucp`)).json()) as {
    ucp: { capabilities: Record<string, { config?: object }[]> };
  };
  const profile = JSON.stringify(
    withMandateKey(withOrderWebhook(demo, receiver!.url("/orders")), {
      ...publicKey.export({ format: "jwk" }),
      kid: kid,
      alg: "ES256",
      use: "sig",
    }),
  );
  profileServer = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => profileServer!.listen(0, "127.0.0.1", resolve));
  const agent = `http://127.0.0.1:${(profileServer.address() as AddressInfo).port}/.well-known/ucp`;
  const headers = (extra: Record<string, string> = {}) => ({
    "content-type": "application/json",
    "request-id": randomUUID(),
    "ucp-agent": `profile="${agent}"`,
    "x-api-key": apiKey,
    "idempotency-key": randomUUID(),
    ...extra,
  });
  const post = async <T>(pathname: string, body: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${base}${pathname}`, {
      method: "POST",
      headers: headers(extra),
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  let variantId = "";
  for (let i = 0; i < 20 && !variantId; i++) {
    const found = await post<{
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    }>(`/s/${STORE}/catalog/product`, { id: seedId("product", STORE, i) });
    variantId = found.body.product?.variants.find((v) => v.availability?.available)?.id ?? "";
  }
  expect(variantId, "a demo variant in stock").not.toBe("");

  const checkoutReady = async (): Promise<Checkout> => {
    const created = await post<Checkout>(`/s/${STORE}/checkout-sessions`, {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: { email: "grace@example.com", first_name: "Grace", last_name: "Hopper" },
      shipping_address: {
        line1: "1005 NW Couch St",
        city: "Portland",
        region: "OR",
        postal_code: "97209",
        country: "US",
      },
      shipping_method_id: "standard",
      payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
    });
    expect(created.body.status, JSON.stringify(created.body.messages)).toBe("ready_for_complete");
    return created.body;
  };
  const complete = async (checkout: Checkout, token: string) =>
    post<Checkout>(`/s/${STORE}/checkout-sessions/${checkout.id}/complete`, {
      payment: {
        instruments: [
          { handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token } },
        ],
      },
      ap2: {
        checkout_mandate: await signCheckoutMandate(mandateTerms(checkout, STORE), {
          privateJwk: privateKey.export({ format: "jwk" }) as JWK,
          kid,
          exp: Math.floor(Date.now() / 1000) + 600,
        }),
      },
    });

  // ── a card order, delivered to the platform's webhook by the in-server worker
  const paid = await complete(await checkoutReady(), "pm_card_visa");
  expect(paid.body.status, JSON.stringify(paid.body.messages)).toBe("completed");
  const orderId = paid.body.order!.id;
  await expect
    .poll(() => receiver!.received.filter((r) => r.body.includes(orderId)).length, { timeout: 20_000 })
    .toBeGreaterThan(0);

  // ── a 3-D Secure payment: the pay link's token is a bearer capability
  const escalated = await complete(await checkoutReady(), "pm_card_threeDSecure2Required");
  expect(escalated.body.status, JSON.stringify(escalated.body.messages)).toBe("requires_escalation");
  const payToken = new URL(escalated.body.continue_url!).pathname.split("/").pop()!;
  expect(payToken.length).toBeGreaterThan(16);
  expect((await fetch(escalated.body.continue_url!)).status).toBe(200);

  // ── OAuth: a platform access token, used; then a wrong secret and a forged token
  const tokenRes = await fetch(`${base}/ucp/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scope: "orders:read",
    }),
  });
  expect(tokenRes.status).toBe(200);
  const accessToken = ((await tokenRes.json()) as { access_token: string }).access_token;
  const withToken = await fetch(`${base}/s/${STORE}/orders/${orderId}`, {
    headers: {
      "request-id": randomUUID(),
      "ucp-agent": `profile="${agent}"`,
      authorization: `Bearer ${accessToken}`,
    },
  });
  expect(withToken.status).toBeLessThan(500);
  const wrongSecret = `ocs_${randomBytes(24).toString("base64url")}`;
  const refused = await fetch(`${base}/ucp/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: client.clientId,
      client_secret: wrongSecret,
    }),
  });
  expect(refused.status).toBe(401);
  const forgedToken = `${accessToken.slice(0, -8)}AAAAAAAA`;
  const wrongKey = `acs_${apiKey.split("_")[1]}_${randomBytes(32).toString("base64url")}`;
  for (const [name, value] of [
    ["authorization", `Bearer ${forgedToken}`],
    ["x-api-key", wrongKey],
  ] as const) {
    const res = await fetch(`${base}/s/${STORE}/orders/${orderId}`, {
      headers: { "request-id": randomUUID(), "ucp-agent": `profile="${agent}"`, [name]: value },
    });
    expect(res.status, name).toBe(401);
  }

  // ── stop the server (its shutdown is logged too), then scan everything printed
  service.child.kill("SIGTERM");
  await service.exited;
  const log = `${setup.output}\n${service.output()}`;
  expect(log).toContain("Ready on");
  // pages have their access line too, with the link's token replaced
  expect(log).toMatch(/"kind":"page","method":"GET","route":"\/s\/[a-z-]+\/pay\/\[token\]","status":200/);
  const secrets: Record<string, string> = {
    "platform API key": apiKey,
    "API key secret part": apiKey.split("_").slice(2).join("_"),
    "OAuth client secret": client.clientSecret,
    "OAuth access token": accessToken,
    "Stripe secret key": stripeSecretKey,
    "Stripe webhook secret": stripeWebhookSecret,
    "store secrets keyring": STORE_KEYRING.split(":")[1]!,
    "pay link token": payToken,
    // the sandbox's test cards are public names, but a real card token must not be logged either: neither may these
    "card token": "pm_card_visa",
    "3-DS card token": "pm_card_threeDSecure2Required",
    "wrong client secret": wrongSecret,
    "forged token": forgedToken,
    "wrong API key": wrongKey,
  };
  for (const [what, secret] of Object.entries(secrets)) {
    expect(log.includes(secret), `${what} appears in the server's output`).toBe(false);
  }
  expect(log).not.toMatch(/acs_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{20,}/);
  expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}/);
});
