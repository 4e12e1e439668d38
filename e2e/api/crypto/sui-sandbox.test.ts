import assert from "node:assert/strict";
import { before, test } from "node:test";

import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Transaction } from "@mysten/sui/transactions";
import { normalizeStructTag } from "@mysten/sui/utils";

import { SANDBOX_GAS_FEE, type CoinObject } from "@/sandbox/sui/ledger";
import { suiSandbox, type SuiSandbox } from "@/sandbox/sui/server";

import { balances, fund, keypair, randomAddress, SUI, USDC } from "../../helpers/sui-sandbox";

// The Sui sandbox's own rules (a test double must fail where Sui fails, or tests would pass on payments that
// could never land): pre-execution refusals change nothing; execution failures charge gas and move nothing else.

const ONE_SUI = 1_000_000_000n;
let sandbox: SuiSandbox;
let seed = 200;
before(async () => {
  sandbox = await suiSandbox();
});

const setup = async () => {
  seed += 1;
  const kp = keypair(seed);
  const address = kp.toSuiAddress();
  await fund(sandbox.url, address, SUI, [2n * ONE_SUI]);
  await fund(sandbox.url, address, USDC, [5_000_000n]);
  const [gas] = sandbox.ledger.coinsOf(address, SUI) as [CoinObject];
  const [usdc] = sandbox.ledger.coinsOf(address, USDC) as [CoinObject];
  return { kp, address, gas, usdc };
};

const ref = (c: CoinObject) => ({ objectId: c.objectId, version: c.version.toString(), digest: c.digest });

const base = (address: string, gas: CoinObject, options: { price?: bigint; budget?: bigint } = {}) => {
  const tx = new Transaction();
  tx.setSender(address);
  tx.setGasPrice(options.price ?? 1_000n);
  tx.setGasBudget(options.budget ?? 10_000_000n);
  tx.setGasPayment([ref(gas)]);
  return tx;
};

const run = async (kp: ReturnType<typeof keypair>, tx: Transaction) => {
  const bytes = await tx.build();
  const { signature } = await kp.signTransaction(bytes);
  return new SuiGrpcClient({ network: "localnet", baseUrl: sandbox.url }).core.executeTransaction({
    transaction: bytes,
    signatures: [signature],
    include: { balanceChanges: true },
  });
};

test("refused before execution, nothing changes: low gas price or budget, an input that is also gas, a MoveCall", async () => {
  const { kp, address, gas, usdc } = await setup();
  const merchant = randomAddress();
  const transfer = (tx: Transaction) => {
    const [part] = tx.splitCoins(tx.objectRef(ref(usdc)), [1n]);
    tx.transferObjects([part!], merchant);
    return tx;
  };
  await assert.rejects(run(kp, transfer(base(address, gas, { price: 999n }))), /reference gas price/);
  await assert.rejects(run(kp, transfer(base(address, gas, { budget: SANDBOX_GAS_FEE - 1n }))), /budget/);
  const both = base(address, gas);
  both.transferObjects([both.objectRef(ref(gas))], merchant);
  await assert.rejects(run(kp, both), /also a gas coin/);
  const call = base(address, gas);
  call.moveCall({ target: "0x2::coin::zero", typeArguments: [SUI] });
  await assert.rejects(run(kp, call), /MoveCall/);
  const after = await balances(sandbox.url, address);
  assert.equal(after.get(normalizeStructTag(SUI)), 2n * ONE_SUI, "no gas charged for a refused transaction");
  assert.equal((await balances(sandbox.url, merchant)).size, 0);
});

test("failing in execution charges the fee only: overspending a coin, merging the gas coin away, an unused split", async () => {
  const { kp, address, gas, usdc } = await setup();
  const merchant = randomAddress();
  let gasNow = gas;
  let usdcNow = usdc;
  const attempt = async (build: (tx: Transaction) => void, error: RegExp) => {
    const tx = base(address, gasNow);
    build(tx);
    const result = await run(kp, tx);
    assert.equal(result.$kind, "FailedTransaction");
    assert.match(result.FailedTransaction!.status.error!.message, error);
    gasNow = sandbox.ledger.getObject(gasNow.objectId)!;
    usdcNow = sandbox.ledger.getObject(usdc.objectId)!;
  };
  await attempt((tx) => {
    const [part] = tx.splitCoins(tx.objectRef(ref(usdcNow)), [5_000_001n]);
    tx.transferObjects([part!], merchant);
  }, /InsufficientCoinBalance/);
  await attempt((tx) => {
    tx.mergeCoins(tx.objectRef(ref(usdcNow)), [tx.gas]);
  }, /gas coin/);
  await attempt((tx) => {
    tx.splitCoins(tx.objectRef(ref(usdcNow)), [1n]);
  }, /UnusedValueWithoutDrop/);
  // splitting the gas coin into its own budget is overspending too (the budget is reserved)
  await attempt((tx) => {
    const [part] = tx.splitCoins(tx.gas, [2n * ONE_SUI - 9_999_999n]);
    tx.transferObjects([part!], merchant);
  }, /InsufficientCoinBalance/);
  const after = await balances(sandbox.url, address);
  assert.equal(after.get(normalizeStructTag(SUI)), 2n * ONE_SUI - 4n * SANDBOX_GAS_FEE);
  assert.equal(after.get(normalizeStructTag(USDC)), 5_000_000n, "the USDC coin never moved");
  assert.equal((await balances(sandbox.url, merchant)).size, 0);
  // failed transactions still bump their owned inputs, as Sui does: the old USDC reference is stale now
  const stale = base(address, gasNow);
  const [old] = stale.splitCoins(stale.objectRef(ref(usdc)), [1n]);
  stale.transferObjects([old!], merchant);
  await assert.rejects(run(kp, stale), /stale/);
  const current = sandbox.ledger.getObject(usdc.objectId)!;
  assert.ok(current.version > usdc.version && current.balance === 5_000_000n);
  const tx = base(address, gasNow);
  const [part] = tx.splitCoins(tx.objectRef(ref(current)), [5_000_000n]);
  tx.transferObjects([part!], merchant);
  const paid = await run(kp, tx);
  assert.equal(paid.$kind, "Transaction");
  assert.deepEqual(
    paid.Transaction!.balanceChanges!.filter((c) => c.address === merchant),
    [{ address: merchant, coinType: normalizeStructTag(USDC), amount: "5000000" }],
  );
});

test("versions: every written object moves to max(input versions) + 1 with a new digest", async () => {
  const { kp, address, gas, usdc } = await setup();
  const tx = base(address, gas);
  const [part] = tx.splitCoins(tx.objectRef(ref(usdc)), [1n]);
  tx.transferObjects([part!], randomAddress());
  await run(kp, tx);
  const gasAfter = sandbox.ledger.getObject(gas.objectId)!;
  const usdcAfter = sandbox.ledger.getObject(usdc.objectId)!;
  assert.equal(gasAfter.version, 2n);
  assert.equal(usdcAfter.version, 2n);
  assert.notEqual(usdcAfter.digest, usdc.digest);
  assert.equal(usdcAfter.balance, 4_999_999n);
});
