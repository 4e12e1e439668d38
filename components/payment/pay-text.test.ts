import assert from "node:assert/strict";
import { test } from "node:test";

import {
  cardLabel,
  countdownText,
  explorerUrl,
  ratePerCoinMinor,
  rateSourceText,
  shortDigest,
} from "./pay-text";

test("a card is named by its brand and last four, as a receipt says it", () => {
  assert.equal(cardLabel("visa", "4242"), "Visa •••• 4242");
  assert.equal(cardLabel("amex", "0005"), "American Express •••• 0005");
  assert.equal(cardLabel("newbrand", "1111"), "Newbrand •••• 1111");
  assert.equal(cardLabel(null, null), "Card");
  assert.equal(cardLabel("visa", null), "Visa");
});

test("the rate a quote used: fiat per whole coin from the leg's amount and fiat value, exactly", () => {
  // 292.8 USDC (6 decimals) for $292.80 → $1.00 a coin
  assert.equal(ratePerCoinMinor("292800000", 6, 29280), 100);
  // 15.6 SUI (9 decimals) for $51.15 → $3.2788… → 328 cents, rounded to the nearest
  assert.equal(ratePerCoinMinor("15600000000", 9, 5115), 328);
  // large amounts stay exact (no float): 1,000,000 SUI for $3,250,000.00
  assert.equal(ratePerCoinMinor("1000000000000000", 9, 325_000_000), 325);
  assert.equal(ratePerCoinMinor("0", 9, 100), 0);
});

test("an explorer link exists only on a real network, never for the sandbox", () => {
  assert.equal(explorerUrl("sandbox", "abc"), null);
  assert.equal(explorerUrl("mainnet", "8Fk3Qz"), "https://suiscan.xyz/mainnet/tx/8Fk3Qz");
  assert.equal(explorerUrl("testnet", "x/y"), "https://suiscan.xyz/testnet/tx/x%2Fy");
});

test("a long digest is shortened for reading", () => {
  assert.equal(shortDigest("8Fk3abcdefghijklmnopQz9a"), "8Fk3ab…opQz9a");
  assert.equal(shortDigest("short"), "short");
});

test("a rate's source and a countdown are written for people", () => {
  assert.equal(rateSourceText("pyth"), "Pyth price feed");
  assert.equal(rateSourceText("fixed (pegged 1:1)"), "sandbox rate, pegged 1:1");
  assert.equal(rateSourceText("par"), "at par");
  assert.equal(countdownText(9 * 60_000 + 5_000), "9:05");
  assert.equal(countdownText(400), "0:01");
  assert.equal(countdownText(-5_000), "0:00");
});
