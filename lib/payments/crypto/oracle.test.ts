import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import { AppError } from "@/lib/core/errors";

import type { ChainPort } from "./chain";
import { resolveCoinOrThrow } from "./coins";
import { createFixedRateOracle, createPythOracle, parseDecimal, PYTH_FEEDS, PYTH_FX_FEEDS } from "./oracle";
import { quotePayment } from "./quote";

// The Pyth adapter against a small local fake of Hermes v2's "latest price update" (a test double started here),
// and the fixed-rate oracle of test mode.

const SUI = resolveCoinOrThrow("mainnet", "SUI");
const USDC = resolveCoinOrThrow("mainnet", "USDC");
const AUSD = resolveCoinOrThrow("mainnet", "AUSD");
const NOW = 1_800_000_000_000;

type Script = { status?: number; body?: string; hang?: boolean; publishTime?: number };
let script: Script = {};
const requests: IncomingMessage[] = [];
const hermes = createServer((req, res) => {
  requests.push(req);
  if (script.hang) return;
  const url = new URL(req.url ?? "/", "http://x");
  if (url.pathname !== "/v2/updates/price/latest") {
    res.writeHead(404).end();
    return;
  }
  if (script.status || script.body !== undefined) {
    res.writeHead(script.status ?? 200, { "content-type": "application/json" }).end(script.body ?? "");
    return;
  }
  const ids = url.searchParams.getAll("ids[]").map((id) => id.replace(/^0x/, ""));
  const prices: Record<string, { price: string; conf: string; expo: number }> = {
    [PYTH_FEEDS.SUI!.slice(2)]: { price: "251234567", conf: "150000", expo: -8 },
    [PYTH_FEEDS.USDC!.slice(2)]: { price: "99990000", conf: "10000", expo: -8 },
    [PYTH_FX_FEEDS.EUR!.slice(2)]: { price: "108123", conf: "12", expo: -5 },
  };
  const publish_time = Math.floor((script.publishTime ?? NOW) / 1000);
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      binary: { encoding: "hex", data: ["00"] },
      parsed: ids
        .filter((id) => prices[id])
        .map((id) => ({
          id,
          price: { ...prices[id]!, publish_time },
          ema_price: { ...prices[id]!, publish_time },
        })),
    }),
  );
});
let endpoint = "";

before(async () => {
  await new Promise<void>((resolve) => hermes.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(hermes.address() as AddressInfo).port}`;
});
after(() => {
  hermes.closeAllConnections();
  hermes.close();
});

const pyth = (extra: Parameters<typeof createPythOracle>[0] = {}) =>
  createPythOracle({ endpoint, apiKey: "k-123", timeoutMs: 5_000, now: () => NOW + 5_000, ...extra });

test("decimals parse to exact integers", () => {
  assert.deepEqual(parseDecimal("2.50"), { value: 250n, expo: -2 });
  assert.deepEqual(parseDecimal("1"), { value: 1n, expo: 0 });
  assert.throws(() => parseDecimal("1e3"));
  assert.throws(() => parseDecimal("-1"));
});

test("Pyth: parsed price with its exponent and confidence; the bearer token is sent; FX for EUR", async () => {
  script = {};
  requests.length = 0;
  const sui = await pyth().usdPrice(SUI);
  assert.deepEqual(sui, {
    ok: true,
    price: { price: 251234567n, conf: 150000n, expo: -8, publishTimeMs: NOW, source: "pyth" },
  });
  assert.equal(requests[0]!.headers.authorization, "Bearer k-123");
  assert.match(requests[0]!.url!, /parsed=true/);
  const eur = await pyth().fxToUsd("eur");
  assert.ok(eur.ok && eur.price.price === 108123n && eur.price.expo === -5);
  const usd = await pyth().fxToUsd("USD");
  assert.ok(usd.ok && usd.price.price === 1n && usd.price.expo === 0);
  // no key configured: no Authorization header
  requests.length = 0;
  await createPythOracle({ endpoint, timeoutMs: 5_000, now: () => NOW }).usdPrice(USDC);
  assert.equal(requests[0]!.headers.authorization, undefined);
});

test("Pyth: prices asked for together share one Hermes request", async () => {
  script = {};
  requests.length = 0;
  const oracle = pyth();
  const [sui, usdc, eur, again] = await Promise.all([
    oracle.usdPrice(SUI),
    oracle.usdPrice(USDC),
    oracle.fxToUsd("EUR"),
    oracle.usdPrice(SUI),
  ]);
  assert.equal(requests.length, 1);
  assert.equal(new URL(requests[0]!.url!, "http://x").searchParams.getAll("ids[]").length, 3);
  assert.ok(sui.ok && sui.price.price === 251234567n);
  assert.ok(usdc.ok && usdc.price.price === 99990000n);
  assert.ok(eur.ok && eur.price.price === 108123n);
  assert.deepEqual(again, sui);
  // a later ask is a new request
  await oracle.usdPrice(USDC);
  assert.equal(requests.length, 2);
});

test("Pyth: a price older than 60 s is stale; a coin without a feed has none", async () => {
  script = { publishTime: NOW - 61_000 };
  assert.deepEqual(await pyth().usdPrice(SUI), { ok: false, reason: "stale" });
  script = { publishTime: NOW - 50_000 };
  assert.equal((await pyth().usdPrice(SUI)).ok, true);
  script = {};
  assert.deepEqual(await pyth().usdPrice(AUSD), { ok: false, reason: "no_feed" });
  assert.deepEqual(await pyth().fxToUsd("JPY"), { ok: false, reason: "no_feed" });
});

test("Pyth down, slow or answering garbage: payment_provider_error with a reason, bounded", async () => {
  const reasonOf = async (s: Script, timeoutMs = 5_000) => {
    script = s;
    const started = Date.now();
    try {
      await pyth({ timeoutMs }).usdPrice(SUI);
      return "ok";
    } catch (error) {
      assert.ok(error instanceof AppError && error.code === "payment_provider_error");
      // a hung oracle is cut at its timeout (a loaded CI machine gets generous slack)
      assert.ok(Date.now() - started < timeoutMs + 3_000);
      return String(error.details?.reason);
    } finally {
      script = {};
    }
  };
  assert.equal(await reasonOf({ status: 503, body: "{}" }), "unreachable");
  assert.equal(await reasonOf({ body: "<html>" }), "bad_response");
  assert.equal(
    await reasonOf({
      body: JSON.stringify({ parsed: [{ id: PYTH_FEEDS.SUI!.slice(2), price: { price: 1 } }] }),
    }),
    "bad_response",
  );
  assert.equal(await reasonOf({ hang: true }, 300), "timeout");
  const closed = createPythOracle({ endpoint: "http://127.0.0.1:9", timeoutMs: 300 });
  await assert.rejects(
    closed.usdPrice(SUI),
    (e) => e instanceof AppError && e.details?.reason === "unreachable",
  );
});

test("fixed-rate oracle: scripted rates (any case), FX, depth and confidence; unknown coins have no feed", async () => {
  const oracle = createFixedRateOracle(
    { usd: { sui: "3.2", USDC: "1" }, fx: { EUR: "1.10" }, depth: { SUI: 5n }, conf: "0.01" },
    () => NOW,
  );
  assert.deepEqual(await oracle.usdPrice(SUI), {
    ok: true,
    price: { price: 32n, conf: 1n, expo: -1, publishTimeMs: NOW, source: "fixed" },
  });
  assert.deepEqual(await oracle.usdPrice(AUSD), { ok: false, reason: "no_feed" });
  const eur = await oracle.fxToUsd("EUR");
  assert.ok(eur.ok && eur.price.price === 110n && eur.price.expo === -2);
  assert.equal(oracle.maxSize(SUI), 5n);
  assert.equal(oracle.maxSize(USDC), null);
});

test("a quote priced by Pyth: SUI at the bottom of its band with the buffer, EUR at the top of its band", async () => {
  script = {};
  const chain: ChainPort = {
    network: "mainnet",
    listCoins: async (_owner, coinType) => [
      {
        objectId: "0x1",
        version: "1",
        digest: "d",
        balance: coinType === SUI.coinType ? 100n * 10n ** 9n : 10n ** 9n,
      },
    ],
    getBalance: async (_owner, coinType) => ({ coinType, coinBalance: 0n, addressBalance: 0n }),
    listBalances: async () => [],
    getReferenceGasPrice: async () => 1_000n,
    getTransaction: async () => null,
    executeTransaction: async () => {
      throw new Error("a quote executes nothing");
    },
  };
  const buyer = `0x${"1".repeat(64)}`;
  const ask = (currency: string, requestedCoin: string) =>
    quotePayment(chain, pyth(), {
      buyer,
      acceptedCoins: ["USDC", "SUI"],
      totalMinor: 1000n,
      currency,
      requestedCoin,
    });
  // $10 / (2.51234567 − 0.0015) × 1.005, rounded up
  assert.deepEqual(
    (await ask("USD", "SUI")).legs.map((l) => [l.amount, l.usdPrice.source]),
    [[4_002_635_495n, "pyth"]],
  );
  // 10 € × (1.08123 + 0.00012) in pegged USDC (0.9999 ± 0.0001), rounded up
  const eur = await ask("EUR", "USDC");
  assert.deepEqual(
    eur.legs.map((l) => [l.amount, l.pegged]),
    [[10_813_500n, true]],
  );
  assert.equal(eur.fx?.source, "pyth");
});
