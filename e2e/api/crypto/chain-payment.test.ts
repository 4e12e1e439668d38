import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import type { ClientWithCoreApi } from "@mysten/sui/client";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { fromBase64, normalizeStructTag } from "@mysten/sui/utils";

import { AppError } from "@/lib/core/errors";
import {
  buildPayment,
  GAS_BUDGET,
  type BuiltPayment,
  type PaymentLeg,
} from "@/lib/payments/crypto/build-payment";
import {
  chainForNetwork,
  createChainPort,
  type ChainPort,
  type ChainTransport,
} from "@/lib/payments/crypto/chain";
import { verifyDigest } from "@/lib/payments/crypto/verify-digest";
import { SANDBOX_GAS_FEE } from "@/sandbox/sui/ledger";
import { suiSandbox, type SuiSandbox } from "@/sandbox/sui/server";

import {
  balances,
  failNextExecution,
  fund,
  hideDigest,
  holdCheckpoints,
  keypair,
  randomAddress,
  setDelay,
  setFault,
  shiftClock,
  SUI,
  touchCoins,
  USDC,
  USDT,
  WUSDC,
} from "../../helpers/sui-sandbox";

// The chain half of the crypto rail against the Sui sandbox (a fake fullnode server): the chain port over both
// faces (gRPC-web and JSON-RPC, through the real @mysten/sui clients), the payment transaction for 1..5 merchants
// signed with an Ed25519 key and submitted as a wallet would, balances moved exactly, and every verification
// outcome for the chain-layer bad inputs of the crypto issue (lookalike coin, another buyer/amount/merchant,
// older than the prepare, late, failed, not yet visible, re-gassed, a node down/slow/garbage).

const N_SUI = 1_000_000_000n;
const n = (type: string) => normalizeStructTag(type);
let sandbox: SuiSandbox;
let seed = 10;

before(async () => {
  sandbox = await suiSandbox();
});

const walletClient = (transport: ChainTransport): ClientWithCoreApi =>
  transport === "grpc"
    ? new SuiGrpcClient({ network: "localnet", baseUrl: sandbox.url })
    : new SuiJsonRpcClient({ network: "localnet", url: sandbox.url });

/** A funded buyer of its own (tests share one sandbox). */
const newBuyer = async (funds: { sui?: bigint[]; usdc?: bigint[]; usdt?: bigint[] } = {}) => {
  seed += 1;
  const kp = keypair(seed);
  const address = kp.toSuiAddress();
  await fund(sandbox.url, address, SUI, funds.sui ?? [5n * N_SUI]);
  if (funds.usdc) await fund(sandbox.url, address, USDC, funds.usdc);
  if (funds.usdt) await fund(sandbox.url, address, USDT, funds.usdt);
  return { kp, address };
};

/** What a wallet does: sign the prepared bytes and submit them through its own client. */
const signAndSubmit = async (client: ClientWithCoreApi, kp: Ed25519Keypair, built: { bytes: string }) => {
  const bytes = fromBase64(built.bytes);
  const { signature } = await kp.signTransaction(bytes);
  return client.core.executeTransaction({ transaction: bytes, signatures: [signature] });
};

const codeOf = async (run: () => Promise<unknown>): Promise<string> => {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    return error.code;
  }
  return "ok";
};

const window = (built: BuiltPayment, preparedAtMs = Date.now() - 1_000) => ({
  buyer: built.sender,
  legs: built.legs,
  preparedAtMs,
  expiresAtMs: preparedAtMs + 10 * 60_000,
  preparedDigest: built.digest,
});

for (const transport of ["grpc", "jsonrpc"] as const) {
  describe(`over ${transport}`, () => {
    const chain = (): ChainPort =>
      createChainPort({ network: "sandbox", url: sandbox.url, transport, timeoutMs: 10_000 });

    test("reads coins largest first, balances with the address balance, the reference gas price", async () => {
      const { address } = await newBuyer({ usdc: [1_000_000n, 7_000_000n, 3_000_000n] });
      await fund(sandbox.url, address, USDC, [], 4_000_000n);
      const port = chain();
      const coins = await port.listCoins(address, USDC);
      assert.deepEqual(
        coins.map((c) => c.balance),
        [7_000_000n, 3_000_000n, 1_000_000n],
      );
      const usdc = await port.getBalance(address, USDC);
      assert.deepEqual(usdc, { coinType: n(USDC), coinBalance: 11_000_000n, addressBalance: 4_000_000n });
      const all = await port.listBalances(address);
      assert.deepEqual(all.map((b) => b.coinType).sort(), [n(SUI), n(USDC)].sort());
      assert.equal(await port.getReferenceGasPrice(), 1_000n);
      assert.equal(await port.getTransaction("4".repeat(44)), null);
      // every page of a wallet with many coins (the node pages by 50)
      const dusty = await newBuyer();
      await fund(
        sandbox.url,
        dusty.address,
        USDT,
        Array.from({ length: 120 }, (_, i) => BigInt(1_000 + i)),
      );
      const dust = await port.listCoins(dusty.address, USDT);
      assert.equal(dust.length, 120);
      assert.equal(new Set(dust.map((c) => c.objectId)).size, 120);
      assert.equal(dust[0]!.balance, 1_119n);
      assert.equal(dust[119]!.balance, 1_000n);
    });

    test("one merchant, USDC from two coins plus SUI: signed, submitted, balances moved exactly, paid", async () => {
      const { kp, address } = await newBuyer({ usdc: [3_000_000n, 2_000_000n] });
      const merchant = randomAddress();
      const legs: PaymentLeg[] = [
        { merchant, coinType: USDC, amount: 4_500_000n },
        { merchant, coinType: SUI, amount: 250_000_000n },
      ];
      const built = await buildPayment(chain(), { sender: address, legs });
      const result = await signAndSubmit(walletClient(transport), kp, built);
      assert.equal(result.$kind, "Transaction");
      assert.equal(result.Transaction?.digest, built.digest, "the digest we announced is the chain's");

      const buyerAfter = await balances(sandbox.url, address);
      const merchantAfter = await balances(sandbox.url, merchant);
      assert.equal(merchantAfter.get(n(USDC)), 4_500_000n);
      assert.equal(merchantAfter.get(n(SUI)), 250_000_000n);
      assert.equal(buyerAfter.get(n(USDC)), 500_000n);
      assert.equal(buyerAfter.get(n(SUI)), 5n * N_SUI - 250_000_000n - SANDBOX_GAS_FEE);

      const outcome = await verifyDigest(chain(), built.digest, window(built));
      assert.equal(outcome.kind, "paid");
      assert.ok(outcome.kind === "paid" && outcome.fastPath);
      // the same bytes again: the stored result, nothing moves twice
      const again = await signAndSubmit(walletClient(transport), kp, built);
      assert.equal(again.Transaction?.digest, built.digest);
      assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), 4_500_000n);
    });

    test("five merchants over three coin types in one transaction; a sixth merchant is refused", async () => {
      const { kp, address } = await newBuyer({
        sui: [3n * N_SUI, 2n * N_SUI],
        usdc: [10_000_000n],
        usdt: [4_000_000n, 4_000_000n],
      });
      const merchants = Array.from({ length: 5 }, randomAddress);
      const legs: PaymentLeg[] = merchants.flatMap((merchant, i) => [
        { merchant, coinType: USDC, amount: BigInt(1_000_000 + i) },
        ...(i % 2 === 0 ? [{ merchant, coinType: USDT, amount: BigInt(2_000_000 + i) }] : []),
        ...(i === 4 ? [{ merchant, coinType: SUI, amount: 3n * N_SUI }] : []),
      ]);
      const built = await buildPayment(chain(), { sender: address, legs });
      assert.equal((await signAndSubmit(walletClient(transport), kp, built)).$kind, "Transaction");
      for (const leg of legs) {
        assert.equal((await balances(sandbox.url, leg.merchant)).get(n(leg.coinType)), leg.amount);
      }
      const after = await balances(sandbox.url, address);
      assert.equal(after.get(n(USDC)), 10_000_000n - 5_000_010n);
      assert.equal(after.get(n(USDT)), 8_000_000n - 6_000_006n);
      assert.equal(after.get(n(SUI)), 5n * N_SUI - 3n * N_SUI - SANDBOX_GAS_FEE);
      const outcome = await verifyDigest(chain(), built.digest, window(built));
      assert.equal(outcome.kind, "paid");
      // a combined payment: each store's checkout verifies the one digest against its own legs only
      for (const merchant of merchants) {
        const own = legs.filter((l) => l.merchant === merchant);
        const each = await verifyDigest(chain(), built.digest, { ...window(built), legs: own });
        assert.ok(each.kind === "paid" && each.legs.length === own.length);
      }

      const six = [...merchants, randomAddress()].map((merchant) => ({
        merchant,
        coinType: USDC,
        amount: 1n,
      }));
      assert.equal(
        await codeOf(() => buildPayment(chain(), { sender: address, legs: six })),
        "invalid_request",
      );
    });

    test("insufficient_funds counts only coin objects the transaction can spend, and the gas reserve", async () => {
      const { address } = await newBuyer({ sui: [GAS_BUDGET + 5n], usdc: [1_000_000n] });
      await fund(sandbox.url, address, USDC, [], 50_000_000n); // address balance: not spendable by our PTB
      const merchant = randomAddress();
      const usdcLeg = (amount: bigint) => [{ merchant, coinType: USDC, amount }];
      assert.equal(
        await codeOf(() => buildPayment(chain(), { sender: address, legs: usdcLeg(2_000_000n) })),
        "insufficient_funds",
      );
      assert.ok(await buildPayment(chain(), { sender: address, legs: usdcLeg(1_000_000n) }));
      // SUI beyond what is left after the gas reserve
      const sui = [{ merchant, coinType: SUI, amount: 6n }];
      assert.equal(
        await codeOf(() => buildPayment(chain(), { sender: address, legs: sui })),
        "insufficient_funds",
      );
    });

    test("stale coin references and a signature by another key are refused by the node: nothing moves", async () => {
      const { kp, address } = await newBuyer({ usdc: [5_000_000n] });
      const merchant = randomAddress();
      const legs = [{ merchant, coinType: USDC, amount: 1_000_000n }];
      const first = await buildPayment(chain(), { sender: address, legs });
      const second = await buildPayment(chain(), {
        sender: address,
        legs: [{ ...legs[0]!, amount: 2_000_000n }],
      });
      await assert.rejects(signAndSubmit(walletClient(transport), keypair(250), first));
      assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), undefined);
      await signAndSubmit(walletClient(transport), kp, first);
      // the second was built on the same coin versions: stale now
      await assert.rejects(signAndSubmit(walletClient(transport), kp, second), /stale|version/i);
      // through our port (as the wallet pages send a buyer's signature): a refusal, told apart from garbage
      const { signature } = await kp.signTransaction(fromBase64(second.bytes));
      await assert.rejects(
        chain().executeTransaction(second.bytes, [signature]),
        (error) =>
          error instanceof AppError &&
          error.code === "payment_provider_error" &&
          error.details?.reason === "refused" &&
          /refused the transaction before running it/.test(error.message),
      );
      assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), 1_000_000n);
      assert.equal((await verifyDigest(chain(), second.digest, window(second))).kind, "pending");
      // the sandbox's touch does to a wallet's coins what another payment would: bytes built before are refused
      const third = await buildPayment(chain(), { sender: address, legs });
      await touchCoins(sandbox.url, address);
      await assert.rejects(signAndSubmit(walletClient(transport), kp, third), /stale|version/i);
      assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), 1_000_000n);
    });
  });
}

test("the sandbox network's port is the integration process's Sui sandbox (SUI_SANDBOX_URL), over gRPC-web", async () => {
  assert.equal(process.env.SUI_SANDBOX_URL, sandbox.url);
  const { address } = await newBuyer({ usdc: [1_234_567n] });
  const usdc = await chainForNetwork("sandbox").getBalance(address, USDC);
  assert.equal(usdc.coinBalance, 1_234_567n);
});

test("wallets: fully resolved bytes sign as is on both faces; a JSON-RPC wallet may resolve a transaction itself", async () => {
  for (const transport of ["grpc", "jsonrpc"] as const) {
    const { kp, address } = await newBuyer({ usdc: [2_000_000n] });
    const merchant = randomAddress();
    const port = createChainPort({ network: "sandbox", url: sandbox.url, transport });
    const built = await buildPayment(port, {
      sender: address,
      legs: [{ merchant, coinType: USDC, amount: 1_500_000n }],
    });
    // what a wallet kit does with our base64: Transaction.from, then sign and execute through its own client
    const result = await walletClient(transport).core.signAndExecuteTransaction({
      transaction: Transaction.from(built.bytes),
      signer: kp,
    });
    assert.equal(result.Transaction?.digest, built.digest, `${transport}: the bytes were not changed`);
    assert.equal((await balances(sandbox.url, merchant)).get(n(USDC)), 1_500_000n);
  }
  // a page may simulate the prepared bytes first (both faces): the same balance changes, nothing written
  {
    const { address } = await newBuyer({ usdc: [2_000_000n] });
    const merchant = randomAddress();
    const built = await buildPayment(createChainPort({ network: "sandbox", url: sandbox.url }), {
      sender: address,
      legs: [{ merchant, coinType: USDC, amount: 700_000n }],
    });
    for (const transport of ["grpc", "jsonrpc"] as const) {
      const simulated = await walletClient(transport).core.simulateTransaction({
        transaction: fromBase64(built.bytes),
        include: { balanceChanges: true },
      });
      assert.equal(simulated.$kind, "Transaction", transport);
      const toMerchant = simulated.Transaction!.balanceChanges!.filter((c) => c.address === merchant);
      assert.deepEqual(
        toMerchant.map((c) => [c.coinType, c.amount]),
        [[n(USDC), "700000"]],
        transport,
      );
    }
    assert.equal((await balances(sandbox.url, merchant)).size, 0, "a simulation moves nothing");
    assert.equal(
      await createChainPort({ network: "sandbox", url: sandbox.url }).getTransaction(built.digest),
      null,
    );
  }
  // client-side resolution (gas price, gas coins, a dry run for the budget) over JSON-RPC
  const { kp, address } = await newBuyer({ sui: [3n * N_SUI, 1_000_000n] });
  const merchant = randomAddress();
  const tx = new Transaction();
  tx.setSender(address);
  const [part] = tx.splitCoins(tx.gas, [123_456n]);
  tx.transferObjects([part!], merchant);
  const result = await walletClient("jsonrpc").core.signAndExecuteTransaction({
    transaction: tx,
    signer: kp,
  });
  assert.equal(result.$kind, "Transaction");
  assert.equal((await balances(sandbox.url, merchant)).get(n(SUI)), 123_456n);
  // the dry run wrote nothing: only the executed transaction moved money
  assert.equal(
    (await balances(sandbox.url, address)).get(n(SUI)),
    3n * N_SUI + 1_000_000n - 123_456n - SANDBOX_GAS_FEE,
  );
});

test("the sandbox's admin hook refuses bad scripts with 400/404 and changes nothing", async () => {
  const post = (action: string, body: unknown) =>
    fetch(`${sandbox.url}/__admin/${action}`, { method: "POST", body: JSON.stringify(body) });
  const address = randomAddress();
  assert.equal((await post("fund", { address, coinType: SUI, balances: ["-5"] })).status, 400);
  assert.equal((await post("fund", { address, coinType: SUI, balances: [1.5] })).status, 400);
  assert.equal((await post("faults", { mode: "explode" })).status, 400);
  assert.equal((await post("delay", { ms: -1 })).status, 400);
  assert.equal((await post("touch", { address: "not an address" })).status, 400);
  assert.equal((await post("nope", {})).status, 404);
  assert.equal((await fetch(`${sandbox.url}/__admin/fund`, { method: "POST", body: "{" })).status, 400);
  assert.equal((await fetch(`${sandbox.url}/__admin/balances`)).status, 400);
  assert.equal((await balances(sandbox.url, address)).size, 0);
  // the chain faces still answer normally
  assert.equal(
    await createChainPort({ network: "sandbox", url: sandbox.url }).getReferenceGasPrice(),
    1_000n,
  );
});

describe("verification outcomes (gRPC, the live transport)", () => {
  const chain = (timeoutMs = 10_000): ChainPort =>
    createChainPort({ network: "sandbox", url: sandbox.url, transport: "grpc", timeoutMs });
  const wallet = () => walletClient("grpc");

  const paidOnce = async (amount = 2_000_000n) => {
    const buyer = await newBuyer({ usdc: [10_000_000n] });
    const merchant = randomAddress();
    const built = await buildPayment(chain(), {
      sender: buyer.address,
      legs: [{ merchant, coinType: USDC, amount }],
    });
    return { ...buyer, merchant, built };
  };

  test("another buyer's digest is wrong_sender; another amount or merchant is short_leg", async () => {
    const a = await paidOnce();
    await signAndSubmit(wallet(), a.kp, a.built);
    const b = await paidOnce();
    const other = await verifyDigest(chain(), a.built.digest, {
      ...window(b.built),
      preparedDigest: b.built.digest,
    });
    assert.equal(other.kind, "wrong_sender");

    const more = await verifyDigest(chain(), a.built.digest, {
      ...window(a.built),
      legs: [{ merchant: a.merchant, coinType: USDC, amount: 2_000_001n }],
    });
    assert.equal(more.kind, "short_leg");
    assert.ok(more.kind === "short_leg" && more.short[0]!.received === 2_000_000n);
    // two expected legs naming the same merchant and coin need both amounts: one transfer cannot pay twice
    const doubled = await verifyDigest(chain(), a.built.digest, {
      ...window(a.built),
      legs: [
        { merchant: a.merchant, coinType: USDC, amount: 1_000_000n },
        { merchant: a.merchant.toUpperCase().replace("0X", "0x"), coinType: USDC, amount: 1_000_001n },
      ],
    });
    assert.ok(doubled.kind === "short_leg" && doubled.short[0]!.amount === 2_000_001n);
    const elsewhere = await verifyDigest(chain(), a.built.digest, {
      ...window(a.built),
      legs: [{ merchant: randomAddress(), coinType: USDC, amount: 2_000_000n }],
    });
    assert.ok(elsewhere.kind === "short_leg" && elsewhere.short[0]!.received === 0n);
  });

  test("a lookalike coin (Wormhole wUSDC) does not pay a USDC leg", async () => {
    const buyer = await newBuyer();
    await fund(sandbox.url, buyer.address, WUSDC, [9_000_000n]);
    const merchant = randomAddress();
    const fake = await buildPayment(chain(), {
      sender: buyer.address,
      legs: [{ merchant, coinType: WUSDC, amount: 2_000_000n }],
    });
    await signAndSubmit(wallet(), buyer.kp, fake);
    const outcome = await verifyDigest(chain(), fake.digest, {
      ...window(fake),
      legs: [{ merchant, coinType: USDC, amount: 2_000_000n }],
    });
    assert.ok(outcome.kind === "short_leg" && outcome.short[0]!.received === 0n);
  });

  test("a transfer older than the prepare is too_old; after the window it is late, covered or not", async () => {
    const a = await paidOnce();
    await signAndSubmit(wallet(), a.kp, a.built);
    const later = Date.now() + 60_000;
    // a digest other than the prepared one (an earlier transfer of the same amount) claimed for a later prepare
    const old = await verifyDigest(chain(), a.built.digest, {
      ...window(a.built, later),
      preparedDigest: "4".repeat(44),
    });
    assert.equal(old.kind, "too_old");

    const b = await paidOnce(3_000_000n);
    await shiftClock(sandbox.url, 11 * 60_000);
    try {
      await signAndSubmit(wallet(), b.kp, b.built);
    } finally {
      await shiftClock(sandbox.url, 0);
    }
    const late = await verifyDigest(chain(), b.built.digest, window(b.built));
    assert.ok(late.kind === "late" && late.covered);
    const repriced = await verifyDigest(chain(), b.built.digest, {
      ...window(b.built),
      legs: [{ merchant: b.merchant, coinType: USDC, amount: 3_100_000n }],
    });
    assert.ok(repriced.kind === "late" && !repriced.covered);
  });

  test("a transaction that failed on chain is failed; one the node cannot see yet is pending, then paid", async () => {
    const a = await paidOnce();
    await failNextExecution(sandbox.url, "MoveAbort: scripted");
    const result = await signAndSubmit(wallet(), a.kp, a.built);
    assert.equal(result.$kind, "FailedTransaction");
    const failed = await verifyDigest(chain(), a.built.digest, window(a.built));
    assert.ok(failed.kind === "failed" && /scripted/.test(failed.error));
    assert.equal((await balances(sandbox.url, a.merchant)).get(n(USDC)), undefined);

    const b = await paidOnce();
    await signAndSubmit(wallet(), b.kp, b.built);
    await hideDigest(sandbox.url, b.built.digest, 1);
    assert.deepEqual(await verifyDigest(chain(), b.built.digest, window(b.built)), {
      kind: "pending",
      digest: b.built.digest,
    });
    assert.equal((await verifyDigest(chain(), b.built.digest, window(b.built))).kind, "paid");
  });

  test("executed but not yet in a checkpoint is pending (both faces), then paid once checkpointed", async () => {
    const a = await paidOnce();
    await holdCheckpoints(sandbox.url, true);
    try {
      const result = await signAndSubmit(wallet(), a.kp, a.built);
      assert.equal(result.$kind, "Transaction");
      for (const transport of ["grpc", "jsonrpc"] as const) {
        const port = createChainPort({ network: "sandbox", url: sandbox.url, transport });
        const tx = await port.getTransaction(a.built.digest);
        assert.ok(tx && tx.checkpoint === null && tx.timestampMs === null, transport);
        assert.deepEqual(await verifyDigest(port, a.built.digest, window(a.built)), {
          kind: "pending",
          digest: a.built.digest,
        });
      }
    } finally {
      await holdCheckpoints(sandbox.url, false);
    }
    const outcome = await verifyDigest(chain(), a.built.digest, window(a.built));
    assert.ok(outcome.kind === "paid" && outcome.checkpoint > 0n);
  });

  test("a wallet that re-gasses the transaction still pays: verified on the legs, not the digest", async () => {
    const a = await paidOnce();
    const regassed = await buildPayment(chain(), {
      sender: a.address,
      legs: a.built.legs,
      gasBudget: GAS_BUDGET * 2n,
    });
    assert.notEqual(regassed.digest, a.built.digest);
    await signAndSubmit(wallet(), a.kp, regassed);
    const outcome = await verifyDigest(chain(), regassed.digest, window(a.built));
    assert.ok(outcome.kind === "paid" && !outcome.fastPath);
  });

  test("a malformed digest is invalid_request", async () => {
    const a = await paidOnce();
    for (const bad of ["", "0xabc", "I".repeat(44), "2".repeat(60)]) {
      assert.equal(await codeOf(() => verifyDigest(chain(), bad, window(a.built))), "invalid_request");
    }
  });

  test("a node that is down, resets, hangs or answers garbage: bounded, one clear error, never a crash", async () => {
    const a = await paidOnce();
    await signAndSubmit(wallet(), a.kp, a.built);
    for (const transport of ["grpc", "jsonrpc"] as const) {
      // generous for answers that come at once (a loaded CI machine), short where the node never answers
      const port = createChainPort({ network: "sandbox", url: sandbox.url, transport, timeoutMs: 5_000 });
      const fast = createChainPort({ network: "sandbox", url: sandbox.url, transport, timeoutMs: 300 });
      const cases = [
        ["down", "unreachable", port],
        ["reset", "unreachable", port],
        ["garbage", "bad_response", port],
        ["shape", "bad_response", port],
        ["hang", "timeout", fast],
      ] as const;
      for (const [mode, reason, chainPort] of cases) {
        await setFault(sandbox.url, mode, 1);
        const started = Date.now();
        const outcome = await verifyDigest(chainPort, a.built.digest, window(a.built));
        assert.deepEqual(
          outcome,
          { kind: "unavailable", digest: a.built.digest, reason },
          `${transport} ${mode}`,
        );
        assert.ok(Date.now() - started < 4_000, "bounded by the timeout");
        await setFault(sandbox.url, mode, 1);
        if (mode === "shape" && transport === "grpc") {
          // an empty protobuf answer is indistinguishable from "no coins": at worst insufficient_funds, never a payment
          assert.deepEqual(await chainPort.listCoins(a.address, USDC), []);
          continue;
        }
        try {
          await chainPort.listCoins(a.address, USDC);
          assert.fail("listCoins succeeded on a faulty node");
        } catch (error) {
          assert.ok(error instanceof AppError && error.code === "payment_provider_error");
          assert.equal(error.details?.reason, reason, `${transport} ${mode} listCoins`);
        }
      }
      await setFault(sandbox.url, null);
      await setDelay(sandbox.url, 1_500);
      try {
        assert.deepEqual(await verifyDigest(fast, a.built.digest, window(a.built)), {
          kind: "unavailable",
          digest: a.built.digest,
          reason: "timeout",
        });
      } finally {
        await setDelay(sandbox.url, 0);
      }
      assert.equal((await verifyDigest(port, a.built.digest, window(a.built))).kind, "paid");
    }
    // nothing listens there
    const closed = createChainPort({ network: "sandbox", url: "http://127.0.0.1:9", transport: "grpc" });
    assert.equal((await verifyDigest(closed, a.built.digest, window(a.built))).kind, "unavailable");
  });
});
