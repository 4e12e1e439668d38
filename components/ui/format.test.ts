import assert from "node:assert/strict";
import { test } from "node:test";

import {
  formatCoin,
  formatDateTime,
  formatDay,
  formatDayRange,
  formatMoney,
  formatMoneyRange,
  localeForCountry,
  minorToDecimal,
  pickLocale,
} from "./format";

// Intl writes a narrow no-break space in some locales: compare with plain spaces
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, " ");

test("money: minor units exactly, in the currency's digits and the reader's locale", () => {
  assert.equal(formatMoney(2699, "USD"), "$26.99");
  assert.equal(plain(formatMoney(62598, "EUR", "de-DE")), "625,98 €");
  assert.equal(formatMoney(62598, "EUR", "en-US"), "€625.98");
  assert.equal(formatMoney(1500, "JPY"), "¥1,500");
  assert.equal(formatMoney(-5, "USD"), "-$0.05");
  // beyond what a float holds exactly
  assert.equal(formatMoney(900719925474099, "USD"), "$9,007,199,254,740.99");
});

test("a range keeps one currency sign, and one price when both ends agree", () => {
  assert.equal(plain(formatMoneyRange(2699, 3699, "USD")), "$26.99 – $36.99");
  assert.equal(plain(formatMoneyRange(2699, 3699, "EUR", "de-DE")), "26,99–36,99 €");
  assert.equal(formatMoneyRange(2699, 2699, "USD"), "$26.99");
});

test("coins: trailing zeros dropped, never rounded up", () => {
  assert.equal(formatCoin(434260000n, 6, "USDC"), "434.26 USDC");
  assert.equal(formatCoin("1999999999", 9, "SUI", "en-US", 4), "1.9999 SUI");
  assert.equal(formatCoin(0n, 9, "SUI"), "0.00 SUI");
  // two decimals at least, as money beside it; more only when they are not zeros
  assert.equal(formatCoin(444100000n, 6, "USDC"), "444.10 USDC");
  assert.equal(formatCoin(435000000n, 6, "USDC"), "435.00 USDC");
  assert.equal(formatCoin(105456660000n, 9, "SUI"), "105.45666 SUI");
  assert.equal(formatCoin(444100000n, 6, "USDC", "de-DE"), "444,10 USDC");
  assert.equal(minorToDecimal("-7", 2), "-0.07");
});

test("dates: readable, with the zone named when the server picks it", () => {
  assert.equal(formatDateTime("2026-12-01T21:43:00Z", "en-US", "UTC"), "Dec 1, 2026, 9:43 PM UTC");
});

test("locale: the viewer's Accept-Language first, by weight; else the store's country; never throws", () => {
  assert.equal(pickLocale("de-DE,de;q=0.9,en;q=0.8", "US"), "de-DE");
  assert.equal(pickLocale("en;q=0.5, fr-CA", null), "fr-CA");
  assert.equal(pickLocale(null, "DE"), "de-DE");
  assert.equal(pickLocale("", "US"), "en-US");
  assert.equal(pickLocale("*;q=1, ¿¿;q=0.9, x-invalid-!!", "FR"), "fr-FR");
  assert.equal(localeForCountry("ZZ"), "en-US");
  assert.equal(localeForCountry(undefined), "en-US");
});

test("UTC days: a date or the UTC day of a moment, whatever the runtime's zone; a range of them", () => {
  assert.equal(formatDay("2026-12-02"), "Dec 2, 2026");
  // the end of a coupon's day in UTC is still that day
  assert.equal(formatDay("2026-12-03T23:59:59.999Z"), "Dec 3, 2026");
  assert.equal(plain(formatDay("2026-12-02", "de-DE")), "02.12.2026");
  // Intl puts thin spaces around the dash
  assert.equal(formatDayRange("2026-11-03", "2026-12-02").replace(/\s/g, " "), "Nov 3 – Dec 2, 2026");
});
