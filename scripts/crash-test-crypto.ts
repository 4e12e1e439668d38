// `npm run test:crash:crypto`: the crypto twin of crash-test-card.ts. Kills the server after the chain took the
// buyer's payment and the digest was claimed, before the order (ACS_FAULT=crash-after-charge in
// lib/checkout/completion/settle-crypto.ts), then checks that the next completion with the same digest — or, with
// no server at all, the admin CLI's reconcile-payments (card and crypto sweeps) — places exactly one order, that
// the merchant's payout address on the chain grew by the prepared legs exactly once, and that nothing is recorded as
// owed back to the buyer. Real processes: the built service (scripts/serve.ts) on a real PostgreSQL
// (scripts/pg-harness.ts) in OAuth test mode, the Sui sandbox in this process (SUI_SANDBOX_URL, so the chain
// outlives the server), the sandbox buyer's bearer from the real OAuth flow, and an agent profile with this
// script's mandate key. Exits non-zero when a check fails.
// Usage: npm run test:crash:crypto [-- --build]
import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import type { JWK } from "jose";
import pg from "pg";

import { withMandateKey } from "../e2e/helpers/card-completion";
import { mandateTerms, type MandateCheckout } from "../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../lib/mandates/sign-checkout-mandate";
import { seedId } from "../prisma/seed/seed-ids";
import { startSuiSandbox } from "../sandbox/sui/server";
import { findFreePort } from "./lib/free-port";
import { TEST_WALLET_FUNDS } from "./lib/fund-sandbox-wallet";
import {
  linkSandboxBuyer,
  sandboxIntentMandate,
  signAndSubmit,
  type SandboxBuyer,
} from "./lib/sandbox-buyer";
import { runAdminProcess, startServedApp, type ServedApp } from "./lib/served-app";
import { startPostgres } from "./pg-harness";

const STORE = "summit-trail-outfitters";
const dir = mkdtempSync(path.join(tmpdir(), "acs-crash-crypto-"));
const keyFile = path.join(dir, "demo-platform-key.json");
/** Who finishes the order after the crash: a completion retry on server B, or the reconciliation CLI. */
const FINISHERS = ["retry", "reconcile-cli"] as const;

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const kid = "crash-test-agent";
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid };

const sui = await startSuiSandbox({ unref: false });
const postgres = await startPostgres();
// the served app runs with NODE_ENV=production on PostgreSQL: test mode (loopback CIMD, sandbox wallet) is explicit
const testEnv = { DATABASE_URL: postgres.url, OAUTH_TEST_MODE: "true", SUI_SANDBOX_URL: sui.url };
const start = (fault: boolean, build: boolean, port: number): Promise<ServedApp> =>
  startServedApp({
    port,
    args: build ? ["--build"] : [],
    env: { ...testEnv, DEMO_KEY_FILE: keyFile, ACS_FAULT: fault ? "crash-after-charge" : undefined },
  });

// the buyer's wallet on the chain this script owns (npm start's funding applies only to a sandbox it starts)
const buyerAddress = (await import("../lib/buyers/sandbox-wallet")).SANDBOX_WALLET_ADDRESS;
for (const { coinType, balances } of TEST_WALLET_FUNDS)
  sui.ledger.fund(buyerAddress, coinType, [...balances]);

const profileHttp = createServer();
let buyer: SandboxBuyer | undefined;
let serverB: ServedApp | undefined;
let build = process.argv.includes("--build");
const t0 = performance.now();
// one deployment on one address: the buyer's bearer is for this base URL (its audience), servers A and B share it
const port = await findFreePort();
try {
  for (const finisher of FINISHERS) {
    console.log(
      `\n=== crash-after-charge, then ${finisher}: PostgreSQL ${postgres.url}, Sui sandbox ${sui.url} ===`,
    );
    const serverA = await start(true, build, port);
    build = false;
    const demo = (await (await fetch(`${serverA.baseUrl}/demo/agent/.well-known/ucp`)).json()) as object;
    const profile = JSON.stringify(
      withMandateKey(demo, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
    );
    profileHttp.removeAllListeners("request");
    profileHttp.on("request", (_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(profile),
    );
    if (!profileHttp.listening)
      await new Promise<void>((resolve) => profileHttp.listen(0, "127.0.0.1", resolve));
    const agent = `http://127.0.0.1:${(profileHttp.address() as AddressInfo).port}/.well-known/ucp`;
    // one OAuth link serves both scenarios: the tokens live in the shared database, for the same base URL
    buyer ??= await linkSandboxBuyer(serverA.baseUrl, { ...testEnv, ACS_FAULT: undefined });
    const bearer = buyer.accessToken;
    const call = async (base: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(`${base}/s/${STORE}${p}`, {
        method,
        headers: {
          "content-type": "application/json",
          "request-id": randomUUID(),
          "idempotency-key": randomUUID(),
          "ucp-agent": `profile="${agent}"`,
          authorization: `Bearer ${bearer}`,
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      return (await res.json()) as Record<string, unknown>;
    };

    // a ready checkout, created with the buyer's bearer (bound to buyer and agent), and its prepared payment
    let variantId = "";
    for (let i = 0; i < 20 && !variantId; i++) {
      const p = (await call(serverA.baseUrl, "POST", "/catalog/product", {
        id: seedId("product", STORE, i),
      })) as { product?: { variants: { id: string; availability?: { available?: boolean } }[] } };
      variantId = p.product?.variants.find((v) => v.availability?.available)?.id ?? "";
    }
    const checkout = await call(serverA.baseUrl, "POST", "/checkout-sessions", {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: { email: "crash@example.com", first_name: "Crash", last_name: "Test" },
      shipping_address: {
        line1: "1 Main St",
        city: "Denver",
        region: "CO",
        postal_code: "80202",
        country: "US",
      },
      shipping_method_id: "standard",
      payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
    });
    assert.equal(checkout.status, "ready_for_complete", JSON.stringify(checkout.messages));
    const id = checkout.id as string;
    // the buyer's allowance for the agent rides with the prepare (DECISIONS B20: an agent prepares a buyer's
    // payment only within one)
    const prepared = (await call(serverA.baseUrl, "POST", `/checkout-sessions/${id}/payment-intent`, {
      buyer_address: buyerAddress,
      ap2: { intent_mandate: await sandboxIntentMandate(buyer.clientId, STORE, checkout.currency as string) },
    })) as { transaction?: { bytes: string; digest: string } };
    assert.ok(prepared.transaction, JSON.stringify(prepared).slice(0, 500));

    const db = new pg.Client({ connectionString: postgres.url });
    db.on("error", () => undefined);
    await db.connect();
    const legs = (
      await db.query("SELECT legs FROM crypto_payments WHERE prepared_digest = $1", [
        prepared.transaction.digest,
      ])
    ).rows[0]?.legs as { merchant: string; coin_type: string; amount: string }[];
    const merchants = [...new Set(legs.map((l) => normalizeSuiAddress(l.merchant)))];
    const onChain = () => {
      const totals = new Map<string, bigint>();
      for (const m of merchants) {
        for (const b of sui.ledger.balancesOf(m)) totals.set(`${m} ${b.coinType}`, b.total);
      }
      return totals;
    };
    const before = onChain();

    // the buyer's wallet pays on the chain; the agent completes with the digest on server A, which dies after the
    // digest is claimed and before the order
    const digest = await signAndSubmit(sui.url, prepared.transaction.bytes);
    assert.equal(digest, prepared.transaction.digest, "the wallet signed the prepared bytes unchanged");
    const completion = {
      payment: {
        instruments: [
          { handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } },
        ],
      },
      ap2: {
        checkout_mandate: await signCheckoutMandate(mandateTerms(checkout as MandateCheckout, STORE), {
          ...signer,
          exp: Math.floor(Date.now() / 1000) + 600,
        }),
        intent_mandate: await sandboxIntentMandate(buyer.clientId, STORE, checkout.currency as string),
      },
    };
    const crashed = await call(serverA.baseUrl, "POST", `/checkout-sessions/${id}/complete`, completion).then(
      (body) => `answered ${JSON.stringify(body).slice(0, 200)}`,
      (error: unknown) => `no answer (${(error as Error).message})`,
    );
    const exitCode = await serverA.exited;
    const count = async (sql: string) => Number((await db.query(sql, [id])).rows[0].n);
    const orders = () => count("SELECT count(*) AS n FROM orders WHERE checkout_id = $1");
    const owedBack = () => count("SELECT count(*) AS n FROM crypto_owed_back WHERE checkout_id = $1");
    const claimed = (
      await db.query("SELECT settled_digest FROM crypto_payments WHERE checkout_id = $1", [id])
    ).rows
      .map((r: { settled_digest: string | null }) => r.settled_digest)
      .filter(Boolean);
    console.log(`server A: completion ${crashed}; exit code ${exitCode}`);
    console.log(`after the crash: digest claimed ${JSON.stringify(claimed)}; orders ${await orders()}`);
    assert.equal(exitCode, "exit 137");
    assert.deepEqual(claimed, [digest], "the digest was claimed before the crash");
    assert.equal(await orders(), 0);

    if (finisher === "reconcile-cli") {
      // no retry, no server: the CLI's sweep (card and crypto) finishes the order from the claimed digest
      const cli = await runAdminProcess(["reconcile-payments", "--store", STORE, "--grace-seconds", "0"], {
        ...testEnv,
        ACS_FAULT: undefined,
      });
      console.log(`reconcile-payments (exit ${cli.code}):\n${cli.output.trim().replace(/^/gm, "  ")}`);
      assert.equal(cli.code, 0);
      assert.match(cli.output, new RegExp(`checkout ${id} payment \\S+: order_placed`));
    } else {
      // server B on the same database and chain: the agent's retry with the same digest places the order
      serverB = await start(false, false, port);
      const retried = await call(serverB.baseUrl, "POST", `/checkout-sessions/${id}/complete`, completion);
      console.log(`server B retry: status ${String(retried.status)}, order ${JSON.stringify(retried.order)}`);
      assert.equal(retried.status, "completed", JSON.stringify(retried).slice(0, 500));
      serverB.child.kill("SIGTERM");
      await serverB.exited;
    }

    // exactly one order; the merchant got the legs once (the chain moved money once); nothing owed back
    const after = onChain();
    const grown = new Map<string, bigint>();
    for (const leg of legs) {
      const k = `${normalizeSuiAddress(leg.merchant)} ${normalizeStructTag(leg.coin_type)}`;
      grown.set(k, (grown.get(k) ?? 0n) + BigInt(leg.amount));
    }
    for (const [k, amount] of grown) {
      assert.equal(
        (after.get(k) ?? 0n) - (before.get(k) ?? 0n),
        amount,
        `merchant balance ${k} grew by its leg once`,
      );
    }
    const paymentRef = (await db.query("SELECT payment_ref FROM orders WHERE checkout_id = $1", [id])).rows[0]
      ?.payment_ref as string | undefined;
    console.log(
      `orders ${await orders()} (payment_ref ${paymentRef}); merchant grew by ${[...grown].map(([k, a]) => `${a} ${k.split(" ")[1]}`).join(", ")}; owed back ${await owedBack()}`,
    );
    assert.equal(await orders(), 1);
    assert.equal(await owedBack(), 0, "no owed-back record");
    await db.end();
    console.log(
      `crash-after-charge + ${finisher}: passed (one payment on chain, one order, nothing owed back)`,
    );
  }
  console.log(
    `\nCrypto crash test passed by retry and by the reconciliation CLI in ${((performance.now() - t0) / 1000).toFixed(1)} s: one payment, one order.`,
  );
} finally {
  profileHttp.close();
  if (serverB?.child.exitCode === null) {
    serverB.child.kill("SIGTERM");
    await serverB.exited;
  }
  await sui.close();
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
