import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import {
  coinTable,
  findCoinByType,
  isSameCoinType,
  normalizeAddress,
  resolveAcceptedCoins,
  resolveCoinOrThrow,
  resolveRequestedCoinOrThrow,
  SUI_TYPE,
} from "./coins";

const USDC_MAINNET = "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC";
const USDC_TESTNET = "0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC";
const WUSDC = "0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN";

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error.code;
  }
  return "ok";
};

test("symbols resolve through our table in any case; SUI has 9 decimals, USDC 6", () => {
  assert.equal(resolveCoinOrThrow("mainnet", "usdc").coinType, USDC_MAINNET);
  assert.equal(resolveCoinOrThrow("mainnet", "UsDc").decimals, 6);
  assert.equal(resolveCoinOrThrow("mainnet", "sui").coinType, SUI_TYPE);
  assert.equal(resolveCoinOrThrow("mainnet", "SUIUSDE").symbol, "suiUSDe");
  assert.equal(resolveCoinOrThrow("testnet", "USDC").coinType, USDC_TESTNET);
  // the sandbox uses the mainnet types (documented in coins.ts)
  assert.equal(resolveCoinOrThrow("sandbox", "USDC").coinType, USDC_MAINNET);
});

test("types compare after normalization: short and long forms are one coin", () => {
  assert.equal(SUI_TYPE, `0x${"0".repeat(63)}2::sui::SUI`);
  assert.equal(resolveCoinOrThrow("mainnet", "0x2::sui::SUI").symbol, "SUI");
  assert.equal(resolveCoinOrThrow("mainnet", `0x${"0".repeat(63)}2::sui::SUI`).symbol, "SUI");
  assert.ok(isSameCoinType("0x2::sui::SUI", SUI_TYPE));
  assert.ok(!isSameCoinType(USDC_MAINNET, USDC_TESTNET));
  assert.ok(!isSameCoinType("not a type", "not a type"));
  assert.equal(findCoinByType("mainnet", USDC_MAINNET.toUpperCase().replace("0X", "0x"))?.symbol, undefined);
});

test("lookalikes, other networks' types, unknown symbols and garbage are unsupported_coin", () => {
  assert.equal(
    codeOf(() => resolveCoinOrThrow("mainnet", WUSDC)),
    "unsupported_coin",
  );
  try {
    resolveCoinOrThrow("mainnet", WUSDC);
  } catch (error) {
    assert.match((error as Error).message, /Wormhole wUSDC/);
  }
  assert.equal(findCoinByType("mainnet", WUSDC), undefined);
  assert.equal(
    codeOf(() => resolveCoinOrThrow("testnet", USDC_MAINNET)),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => resolveCoinOrThrow("testnet", "USDT")),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => resolveCoinOrThrow("mainnet", "WUSDC")),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => resolveCoinOrThrow("mainnet", "0xzz::a::B")),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => resolveCoinOrThrow("mainnet", "")),
    "unsupported_coin",
  );
});

test("accepted coins keep the store's order, drop duplicates, refuse unknown entries with a path", () => {
  const accepted = resolveAcceptedCoins("mainnet", ["usdt", "SUI", USDC_MAINNET, "usdc"]);
  assert.deepEqual(
    accepted.map((c) => c.symbol),
    ["USDT", "SUI", "USDC"],
  );
  try {
    resolveAcceptedCoins("mainnet", ["USDC", WUSDC]);
    assert.fail("lookalike accepted");
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, "unsupported_coin");
    assert.equal(error.path, "$.accepted_coins[1]");
  }
});

test("a requested coin must be one the store accepts", () => {
  const accepted = resolveAcceptedCoins("mainnet", ["USDC", "SUI"]);
  assert.equal(resolveRequestedCoinOrThrow("mainnet", accepted, "sui").symbol, "SUI");
  assert.equal(
    codeOf(() => resolveRequestedCoinOrThrow("mainnet", accepted, "USDT")),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => resolveRequestedCoinOrThrow("mainnet", accepted, WUSDC)),
    "unsupported_coin",
  );
});

test("every table entry is normalized and unique per network", () => {
  for (const network of ["mainnet", "testnet", "sandbox"] as const) {
    const types = coinTable(network).map((c) => c.coinType);
    assert.equal(new Set(types).size, types.length);
    for (const type of types) assert.match(type, /^0x[0-9a-f]{64}::/);
  }
});

test("addresses normalize or are refused", () => {
  assert.equal(normalizeAddress("0x2"), `0x${"0".repeat(63)}2`);
  assert.equal(normalizeAddress(`0x${"A".repeat(64)}`), `0x${"a".repeat(64)}`);
  assert.equal(normalizeAddress("0x"), null);
  assert.equal(normalizeAddress(`0x${"1".repeat(65)}`), null);
  assert.equal(normalizeAddress("hello"), null);
});
