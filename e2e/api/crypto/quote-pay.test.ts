import assert from "node:assert/strict";
import { before, test } from "node:test";

import { SuiGrpcClient } from "@mysten/sui/grpc";
import { fromBase64, normalizeStructTag } from "@mysten/sui/utils";

import { AppError } from "@/lib/core/errors";
import { buildPayment, GAS_BUDGET } from "@/lib/payments/crypto/build-payment";
import { chainForNetwork } from "@/lib/payments/crypto/chain";
import { createFixedRateOracle, SANDBOX_RATES } from "@/lib/payments/crypto/oracle";
import { preparePayment } from "@/lib/payments/crypto/prepare-payment";
import { legsForMerchant, quotePayment } from "@/lib/payments/crypto/quote";
import { fundSandboxWallet, sandboxTestWallet } from "@/lib/payments/crypto/sandbox-client";
import { verifyDigest } from "@/lib/payments/crypto/verify-digest";
import { SANDBOX_GAS_FEE } from "@/sandbox/sui/ledger";
import { suiSandbox, type SuiSandbox } from "@/sandbox/sui/server";

import { balances, fund, keypair, randomAddress, SUI, USDC, USDT } from "../../helpers/sui-sandbox";

// Quote → build → the wallet signs and submits → verify, on the Sui sandbox with the test-mode oracle, for the
// money the merchant must receive; and the races a wallet can produce: the same bytes sent many times at once,
// and two prepared payments (a replaced prepare) signed and sent together over the same coins.

const ONE_SUI = 1_000_000_000n;
let sandbox: SuiSandbox;
let seed = 120;
before(async () => {
  sandbox = await suiSandbox();
});

const n = (t: string) => normalizeStructTag(t);
const wallet = () => new SuiGrpcClient({ network: "localnet", baseUrl: sandbox.url });
const submit = async (kp: ReturnType<typeof keypair>, bytes: string) => {
  const raw = fromBase64(bytes);
  const { signature } = await kp.signTransaction(raw);
  return wallet().core.executeTransaction({ transaction: raw, signatures: [signature] });
};
const buyer = async () => {
  seed += 1;
  const kp = keypair(seed);
  return { kp, address: kp.toSuiAddress() };
};

test("auto across USDT, USDC and SUI: the merchant receives exactly the quoted legs, the digest verifies", async () => {
  const { kp, address } = await buyer();
  await fund(sandbox.url, address, USDT, [2_000_000n]);
  await fund(sandbox.url, address, USDC, [1_500_000n, 1_000_000n], 9_000_000n);
  await fund(sandbox.url, address, SUI, [GAS_BUDGET + 3n * ONE_SUI]);
  const merchant = randomAddress();
  const chain = chainForNetwork("sandbox");
  const quote = await quotePayment(chain, createFixedRateOracle(), {
    buyer: address,
    acceptedCoins: ["SUI", "usdt", "USDC"],
    totalMinor: 1_000n,
    currency: "USD",
  });
  // USDT 2.00, USDC 2.50 (coin objects only: the 9.00 address balance is not spendable), SUI for the last 5.50
  assert.deepEqual(
    quote.legs.map((l) => [l.symbol, l.amount, l.fiatMinor]),
    [
      ["USDT", 2_000_000n, 200n],
      ["USDC", 2_500_000n, 250n],
      ["SUI", 2_211_000_000n, 550n],
    ],
  );
  const preparedAtMs = Date.now() - 1_000;
  const built = await buildPayment(chain, { sender: address, legs: legsForMerchant(quote, merchant) });
  const result = await submit(kp, built.bytes);
  assert.equal(result.Transaction?.digest, built.digest);
  const got = await balances(sandbox.url, merchant);
  assert.equal(got.get(n(USDT)), 2_000_000n);
  assert.equal(got.get(n(USDC)), 2_500_000n);
  assert.equal(got.get(n(SUI)), 2_211_000_000n);
  const left = await balances(sandbox.url, address);
  assert.equal(left.get(n(SUI)), GAS_BUDGET + 3n * ONE_SUI - 2_211_000_000n - SANDBOX_GAS_FEE);
  assert.equal(left.get(n(USDC)), 9_000_000n, "the address balance is untouched");
  const outcome = await verifyDigest(chain, built.digest, {
    buyer: address,
    legs: built.legs,
    preparedAtMs,
    expiresAtMs: preparedAtMs + 600_000,
    preparedDigest: built.digest,
  });
  assert.equal(outcome.kind, "paid");
});

test("an EUR store prices USDC through FX; a named coin over the scripted depth is insufficient_liquidity", async () => {
  const { address } = await buyer();
  await fund(sandbox.url, address, USDC, [50_000_000n]);
  await fund(sandbox.url, address, SUI, [GAS_BUDGET + 100n * ONE_SUI]);
  const chain = chainForNetwork("sandbox");
  const eur = await quotePayment(chain, createFixedRateOracle(), {
    buyer: address,
    acceptedCoins: ["USDC", "SUI"],
    totalMinor: 1_000n,
    currency: "EUR",
    requestedCoin: "usdc",
  });
  assert.deepEqual(
    eur.legs.map((l) => l.amount),
    [10_800_000n],
  );
  const shallow = createFixedRateOracle({ ...SANDBOX_RATES, depth: { SUI: 10n * ONE_SUI } });
  await assert.rejects(
    quotePayment(chain, shallow, {
      buyer: address,
      acceptedCoins: ["USDC", "SUI"],
      totalMinor: 5_000n,
      currency: "USD",
      requestedCoin: "SUI",
    }),
    (error) => error instanceof AppError && error.code === "insufficient_liquidity",
  );
});

test("a wallet of dust counts only the coins one transaction can merge (the largest 200)", async () => {
  const { address } = await buyer();
  await fund(sandbox.url, address, SUI, [ONE_SUI]);
  await fund(
    sandbox.url,
    address,
    USDC,
    Array.from({ length: 250 }, () => 10_000n),
  ); // 250 coins of 1 ¢
  const chain = chainForNetwork("sandbox");
  const ask = (totalMinor: bigint) =>
    quotePayment(chain, createFixedRateOracle(), {
      buyer: address,
      acceptedCoins: ["USDC"],
      totalMinor,
      currency: "USD",
    });
  assert.deepEqual(
    (await ask(200n)).legs.map((l) => l.amount),
    [2_000_000n],
  );
  await assert.rejects(ask(201n), (e) => e instanceof AppError && e.code === "insufficient_funds");
  const built = await buildPayment(chain, {
    sender: address,
    legs: [{ merchant: randomAddress(), coinType: USDC, amount: 2_000_000n }],
  });
  assert.ok(built.digest);
});

test("race: the same signed bytes sent 8 times at once execute once; every answer is the one transaction", async () => {
  const { kp, address } = await buyer();
  await fund(sandbox.url, address, USDC, [5_000_000n]);
  await fund(sandbox.url, address, SUI, [ONE_SUI]);
  const merchant = randomAddress();
  const chain = chainForNetwork("sandbox");
  const built = await buildPayment(chain, {
    sender: address,
    legs: [{ merchant, coinType: USDC, amount: 3_000_000n }],
  });
  const results = await Promise.all(Array.from({ length: 8 }, () => submit(kp, built.bytes)));
  for (const r of results) assert.equal(r.Transaction?.digest, built.digest);
  assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), 3_000_000n);
  assert.equal(
    (await balances(sandbox.url, address)).get(n(SUI)),
    ONE_SUI - SANDBOX_GAS_FEE,
    "gas paid once",
  );

  // the same within one tick, straight at the ledger (HTTP tends to serialize them): all wait on the signature check
  const again = await buildPayment(chain, {
    sender: address,
    legs: [{ merchant, coinType: USDC, amount: 1_000_000n }],
  });
  const raw = fromBase64(again.bytes);
  const { signature } = await kp.signTransaction(raw);
  const direct = await Promise.all(Array.from({ length: 8 }, () => sandbox.ledger.execute(raw, [signature])));
  for (const r of direct) assert.ok(r.success && r.digest === again.digest);
  assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), 4_000_000n);
});

test("race: a replaced prepare and its replacement signed and sent together over the same coins: one lands", async () => {
  const { kp, address } = await buyer();
  await fund(sandbox.url, address, USDC, [5_000_000n]);
  await fund(sandbox.url, address, SUI, [ONE_SUI]);
  const merchant = randomAddress();
  const chain = chainForNetwork("sandbox");
  const first = await buildPayment(chain, {
    sender: address,
    legs: [{ merchant, coinType: USDC, amount: 2_000_000n }],
  });
  const second = await buildPayment(chain, {
    sender: address,
    legs: [{ merchant, coinType: USDC, amount: 2_000_001n }],
  });
  const settled = await Promise.allSettled([submit(kp, first.bytes), submit(kp, second.bytes)]);
  assert.equal(settled.filter((s) => s.status === "fulfilled").length, 1, "exactly one executes");
  const received = (await balances(sandbox.url, merchant)).get(n(USDC));
  assert.ok(received === 2_000_000n || received === 2_000_001n);
  const window = { buyer: address, preparedAtMs: Date.now() - 5_000, expiresAtMs: Date.now() + 600_000 };
  const outcomes = await Promise.all([
    verifyDigest(chain, first.digest, { ...window, legs: first.legs, preparedDigest: first.digest }),
    verifyDigest(chain, second.digest, { ...window, legs: second.legs, preparedDigest: second.digest }),
  ]);
  assert.deepEqual(outcomes.map((o) => o.kind).sort(), ["paid", "pending"]);
});

test("the built-in test wallet: a fixed address, funded by the sandbox faucet, pays a sandbox quote", async () => {
  const wallet = sandboxTestWallet();
  assert.equal(wallet.toSuiAddress(), sandboxTestWallet().toSuiAddress());
  const before = await balances(sandbox.url, wallet.toSuiAddress());
  await fundSandboxWallet(wallet.toSuiAddress());
  const after = await balances(sandbox.url, wallet.toSuiAddress());
  assert.equal((after.get(n(USDC)) ?? 0n) - (before.get(n(USDC)) ?? 0n), 500_000_000n);
  assert.equal((after.get(n(SUI)) ?? 0n) - (before.get(n(SUI)) ?? 0n), 100n * ONE_SUI);
  const chain = chainForNetwork("sandbox");
  const quote = await quotePayment(chain, createFixedRateOracle(), {
    buyer: wallet.toSuiAddress(),
    acceptedCoins: ["USDC", "SUI"],
    totalMinor: 4_999n,
    currency: "USD",
  });
  const built = await buildPayment(chain, {
    sender: wallet.toSuiAddress(),
    legs: legsForMerchant(quote, randomAddress()),
  });
  assert.equal((await submit(wallet, built.bytes)).Transaction?.digest, built.digest);
  const saved = process.env.SUI_SANDBOX_URL;
  try {
    process.env.SUI_SANDBOX_URL = "http://127.0.0.1:9";
    await assert.rejects(
      fundSandboxWallet(wallet.toSuiAddress()),
      (error) => error instanceof AppError && error.code === "payment_provider_error",
    );
  } finally {
    if (saved === undefined) delete process.env.SUI_SANDBOX_URL;
    else process.env.SUI_SANDBOX_URL = saved;
  }
});

test("preparePayment: quote + transaction + window; the signed result verifies as paid with its own expectation", async () => {
  const { kp, address } = await buyer();
  await fund(sandbox.url, address, USDC, [30_000_000n]);
  await fund(sandbox.url, address, SUI, [ONE_SUI]);
  const merchant = randomAddress();
  const deps = { chain: chainForNetwork("sandbox"), oracle: createFixedRateOracle() };
  const prepared = await preparePayment(deps, {
    buyer: address,
    merchant,
    acceptedCoins: ["USDC", "SUI"],
    totalMinor: 2_599n,
    currency: "USD",
  });
  assert.equal(prepared.expiresAtMs - prepared.preparedAtMs, 10 * 60_000);
  assert.deepEqual(
    prepared.transaction.legs.map((l) => [l.merchant, l.amount]),
    [[merchant, 25_990_000n]],
  );
  await submit(kp, prepared.transaction.bytes);
  const outcome = await verifyDigest(deps.chain, prepared.transaction.digest, prepared.expected);
  assert.ok(outcome.kind === "paid" && outcome.fastPath);
  for (const bad of [{ buyer: "0x12zz" }, { merchant: "merchant" }]) {
    await assert.rejects(
      preparePayment(deps, {
        buyer: address,
        merchant,
        acceptedCoins: ["USDC"],
        totalMinor: 1n,
        currency: "USD",
        ...bad,
      }),
      (error) => error instanceof AppError && error.code === "invalid_request",
    );
  }
});
