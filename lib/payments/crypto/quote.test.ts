import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { GAS_BUDGET } from "./build-payment";
import { resolveCoinOrThrow, SUI_TYPE, type CoinInfo } from "./coins";
import type { PriceResult } from "./oracle";
import { computeQuote, isPegged, type Holding } from "./quote";

const coin = (symbol: string): CoinInfo => resolveCoinOrThrow("mainnet", symbol);
const USDC = coin("USDC");
const USDT = coin("USDT");
const AUSD = coin("AUSD");
const SUI = coin("SUI");
const WUSDC = "0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN";
const ONE_SUI = 1_000_000_000n;

const price = (value: bigint, expo: number, conf = 0n): PriceResult => ({
  ok: true,
  price: { price: value, conf, expo, publishTimeMs: 0, source: "test" },
});
const usd = price(1n, 0);

type Setup = {
  accepted?: string[];
  requested?: string | null;
  total: bigint;
  currency?: string;
  holdings?: [CoinInfo, bigint, bigint?][];
  prices?: [CoinInfo, PriceResult][];
  fx?: PriceResult;
  maxSize?: Partial<Record<string, bigint>>;
};

const quote = (s: Setup) =>
  computeQuote({
    network: "mainnet",
    acceptedCoins: s.accepted ?? ["USDC", "SUI"],
    requestedCoin: s.requested,
    totalMinor: s.total,
    currency: s.currency ?? "USD",
    holdings: new Map<string, Holding>(
      (s.holdings ?? [[SUI, 100n * ONE_SUI]]).map(([c, coins, address]) => [
        c.coinType,
        { coinBalance: coins, addressBalance: address ?? 0n },
      ]),
    ),
    prices: new Map(
      (
        s.prices ?? [
          [USDC, price(100_000_000n, -8)],
          [USDT, price(99_950_000n, -8)],
          [SUI, price(250n, -2)],
        ]
      ).map(([c, p]) => [c.coinType, p]),
    ),
    fx: s.fx ?? usd,
    maxSize: (c) => s.maxSize?.[c.symbol] ?? null,
  });

const codeOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error.code;
  }
  return "ok";
};

const legs = (q: ReturnType<typeof quote>) => q.legs.map((l) => [l.symbol, l.amount, l.fiatMinor]);

test("a USD stablecoin pays 1:1 in a USD store: 1234 ¢ → 12 340 000 units, auto or named in any case", () => {
  const holdings: Setup["holdings"] = [
    [USDC, 20_000_000n],
    [SUI, ONE_SUI],
  ];
  assert.deepEqual(legs(quote({ total: 1234n, holdings })), [["USDC", 12_340_000n, 1234n]]);
  const named = quote({ total: 1234n, holdings, requested: "usdc" });
  assert.equal(named.mode, "named");
  assert.deepEqual(legs(named), [["USDC", 12_340_000n, 1234n]]);
  assert.equal(named.legs[0]!.pegged, true);
  assert.equal(named.gasReserve, GAS_BUDGET);
});

test("auto: stablecoins in the store's order, then SUI (50 bp buffer), the legs summing to the total", () => {
  const q = quote({
    accepted: ["SUI", "USDT", "USDC"],
    total: 1000n,
    holdings: [
      [USDT, 5_000_000n],
      [USDC, 3_000_000n],
      [SUI, GAS_BUDGET + 10n * ONE_SUI],
    ],
  });
  // 200 ¢ of SUI at $2.50: 0.8 SUI × 1.005
  assert.deepEqual(legs(q), [
    ["USDT", 5_000_000n, 500n],
    ["USDC", 3_000_000n, 300n],
    ["SUI", 804_000_000n, 200n],
  ]);
});

test("auto combines at most 3 coin types", () => {
  const holdings: Setup["holdings"] = [
    [USDT, 1_000_000n],
    [USDC, 1_000_000n],
    [AUSD, 1_000_000n],
    [SUI, GAS_BUDGET + 100n * ONE_SUI],
  ];
  const prices: Setup["prices"] = [
    [USDC, usd],
    [USDT, usd],
    [AUSD, usd],
    [SUI, price(250n, -2)],
  ];
  const accepted = ["USDT", "USDC", "AUSD", "SUI"];
  assert.deepEqual(
    legs(quote({ accepted, total: 300n, holdings, prices })).map((l) => l[0]),
    ["USDT", "USDC", "AUSD"],
  );
  // a fourth coin is never added: SUI replaces the last stablecoin instead
  assert.deepEqual(
    legs(quote({ accepted, total: 301n, holdings, prices })).map((l) => l[0]),
    ["USDT", "USDC", "SUI"],
  );
  const noSui = holdings.map(([c, b]) => [c, c === SUI ? GAS_BUDGET : b] as [CoinInfo, bigint]);
  assert.deepEqual(
    legs(quote({ accepted, total: 300n, holdings: noSui, prices })).map((l) => l[0]),
    ["USDT", "USDC", "AUSD"],
  );
  assert.equal(
    codeOf(() => quote({ accepted, total: 301n, holdings: noSui, prices })),
    "insufficient_funds",
  );
});

test("dust in the preferred coins does not block: the first combination of ≤ 3 coins that covers wins", () => {
  const q = quote({
    accepted: ["USDT", "USDC", "AUSD", "SUI"],
    total: 500n,
    holdings: [
      [USDT, 10_000n],
      [USDC, 10_000n],
      [AUSD, 10_000n],
      [SUI, GAS_BUDGET + 100n * ONE_SUI],
    ],
    prices: [
      [USDC, usd],
      [USDT, usd],
      [AUSD, usd],
      [SUI, price(250n, -2)],
    ],
  });
  // 498 ¢ of SUI at $2.50 with the 50 bp buffer = 2.00196 SUI
  assert.deepEqual(legs(q), [
    ["USDT", 10_000n, 1n],
    ["USDC", 10_000n, 1n],
    ["SUI", 2_001_960_000n, 498n],
  ]);
});

test("gas is reserved from SUI first: exactly enough pays, one MIST less is insufficient_funds", () => {
  const accepted = ["SUI"];
  const exact = quote({ accepted, total: 200n, holdings: [[SUI, GAS_BUDGET + 804_000_000n]] });
  assert.deepEqual(legs(exact), [["SUI", 804_000_000n, 200n]]);
  assert.equal(
    codeOf(() => quote({ accepted, total: 200n, holdings: [[SUI, GAS_BUDGET + 803_999_999n]] })),
    "insufficient_funds",
  );
  // plenty of USDC but no SUI for gas
  assert.equal(
    codeOf(() =>
      quote({
        total: 100n,
        holdings: [
          [USDC, 100_000_000n],
          [SUI, GAS_BUDGET - 1n],
        ],
      }),
    ),
    "insufficient_funds",
  );
});

test("only coin objects count: an address balance the transaction cannot spend is not funds", () => {
  try {
    quote({
      accepted: ["USDC"],
      total: 100n,
      holdings: [
        [USDC, 0n, 500_000_000n],
        [SUI, ONE_SUI],
      ],
    });
    assert.fail("address balance counted");
  } catch (error) {
    assert.ok(error instanceof AppError && error.code === "insufficient_funds");
    assert.match(error.message, /address balances of USDC/);
  }
});

test("named coins: not accepted or a lookalike is unsupported_coin; no price, stale or over the size is insufficient_liquidity", () => {
  const holdings: Setup["holdings"] = [
    [USDC, 100_000_000n],
    [AUSD, 100_000_000n],
    [SUI, GAS_BUDGET + 1000n * ONE_SUI],
  ];
  assert.equal(
    codeOf(() => quote({ total: 100n, holdings, requested: "USDT" })),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => quote({ total: 100n, holdings, requested: WUSDC })),
    "unsupported_coin",
  );
  assert.equal(
    codeOf(() => quote({ total: 100n, holdings, requested: "DOGE" })),
    "unsupported_coin",
  );
  const accepted = ["USDC", "AUSD", "SUI"];
  assert.equal(
    codeOf(() => quote({ accepted, total: 100n, holdings, requested: "ausd" })),
    "insufficient_liquidity",
  );
  const stale: Setup["prices"] = [[SUI, { ok: false, reason: "stale" }]];
  assert.equal(
    codeOf(() => quote({ accepted, total: 100n, holdings, prices: stale, requested: "SUI" })),
    "insufficient_liquidity",
  );
  // depth: 10 000 ¢ of SUI at $2.50 is 40.2 SUI with the buffer
  const maxSize = { SUI: 40n * ONE_SUI, USDC: 1n };
  assert.equal(
    codeOf(() => quote({ accepted, total: 10_000n, holdings, maxSize, requested: "SUI" })),
    "insufficient_liquidity",
  );
  assert.deepEqual(legs(quote({ accepted, total: 9_900n, holdings, maxSize, requested: "SUI" })), [
    ["SUI", 39_798_000_000n, 9_900n],
  ]);
  // USDC never triggers it
  assert.deepEqual(legs(quote({ accepted, total: 10_000n, holdings, maxSize, requested: "USDC" })), [
    ["USDC", 100_000_000n, 10_000n],
  ]);
  // a named coin the wallet lacks is insufficient_funds
  assert.equal(
    codeOf(() => quote({ accepted, total: 100_000n, holdings, requested: "usdc" })),
    "insufficient_funds",
  );
});

test("auto caps a coin at its maximum size and takes the rest from the next coin", () => {
  const q = quote({
    accepted: ["USDT", "SUI"],
    total: 1000n,
    holdings: [
      [USDT, 100_000_000n],
      [SUI, GAS_BUDGET + 100n * ONE_SUI],
    ],
    maxSize: { USDT: 4_000_000n },
  });
  assert.deepEqual(legs(q), [
    ["USDT", 4_000_000n, 400n],
    ["SUI", 2_412_000_000n, 600n],
  ]);
});

test("a depegged stablecoin is priced by the oracle like SUI; the peg band is ±1 % with a tight confidence", () => {
  assert.ok(isPegged({ price: 99n, conf: 0n, expo: -2, publishTimeMs: 0, source: "t" }));
  assert.ok(!isPegged({ price: 989n, conf: 0n, expo: -3, publishTimeMs: 0, source: "t" }));
  assert.ok(!isPegged({ price: 100n, conf: 1n, expo: -2, publishTimeMs: 0, source: "t" }));
  const q = quote({
    accepted: ["USDT"],
    total: 1000n,
    holdings: [
      [USDT, 100_000_000n],
      [SUI, ONE_SUI],
    ],
    prices: [[USDT, price(95n, -2)]],
  });
  // $10 / 0.95 × 1.005 = 10.578947… USDT, rounded up
  assert.deepEqual(legs(q), [["USDT", 10_578_948n, 1000n]]);
  assert.equal(q.legs[0]!.pegged, false);
});

test("EUR stores convert through FX (top of its band); prices at the bottom of theirs; rounding up", () => {
  const holdings: Setup["holdings"] = [
    [USDC, 100_000_000n],
    [SUI, GAS_BUDGET + 100n * ONE_SUI],
  ];
  const eur = price(108n, -2);
  assert.deepEqual(legs(quote({ total: 1000n, currency: "EUR", fx: eur, holdings, requested: "USDC" })), [
    ["USDC", 10_800_000n, 1000n],
  ]);
  // 10.80 USD / 2.50 × 1.005 = 4.3416 SUI
  assert.deepEqual(legs(quote({ total: 1000n, currency: "eur", fx: eur, holdings, requested: "SUI" })), [
    ["SUI", 4_341_600_000n, 1000n],
  ]);
  // FX conf 0.01 → 1.09; SUI conf 0.01 → 2.49: 10.90 / 2.49 × 1.005 = 4.39939759… → up
  const wide = quote({
    total: 1000n,
    currency: "EUR",
    fx: price(108n, -2, 1n),
    holdings,
    prices: [[SUI, price(250n, -2, 1n)]],
    requested: "SUI",
  });
  assert.deepEqual(legs(wide), [["SUI", 4_399_397_591n, 1000n]]);
  // 1 ¢ at $7.00: 1 428 571.43 × 1.005 = 1 435 714.28… → 1 435 715
  assert.deepEqual(legs(quote({ total: 1n, holdings, prices: [[SUI, price(7n, 0)]], requested: "SUI" })), [
    ["SUI", 1_435_715n, 1n],
  ]);
  assert.equal(
    codeOf(() => quote({ total: 1000n, currency: "JPY", fx: { ok: false, reason: "no_feed" }, holdings })),
    "payment_provider_error",
  );
  assert.equal(
    codeOf(() => quote({ total: 0n, holdings })),
    "invalid_request",
  );
  assert.equal(
    codeOf(() => quote({ total: 10n, currency: "XYZ1", holdings })),
    "invalid_request",
  );
});

test("property: auto legs always sum to the total, never exceed what can be spent, and pay at least the value", () => {
  let state = 42;
  const rand = (max: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % max;
  };
  let paid = 0;
  for (let i = 0; i < 300; i += 1) {
    const holdings: [CoinInfo, bigint][] = [
      [USDT, BigInt(rand(5_000_000))],
      [USDC, BigInt(rand(5_000_000))],
      [SUI, GAS_BUDGET + BigInt(rand(5)) * ONE_SUI + BigInt(rand(1_000_000_000))],
    ];
    const total = BigInt(1 + rand(2_000));
    const suiPrice = price(BigInt(50 + rand(1_000)), -2);
    let q;
    try {
      q = quote({
        accepted: ["USDC", "SUI", "USDT"],
        total,
        holdings,
        prices: [
          [USDC, usd],
          [USDT, usd],
          [SUI, suiPrice],
        ],
      });
    } catch (error) {
      assert.ok(error instanceof AppError && error.code === "insufficient_funds");
      continue;
    }
    paid += 1;
    assert.equal(
      q.legs.reduce((s, l) => s + l.fiatMinor, 0n),
      total,
    );
    assert.deepEqual(
      q.legs.map((l) => l.symbol),
      ["USDC", "USDT", "SUI"].filter((s) => q.legs.some((l) => l.symbol === s)),
    );
    for (const l of q.legs) {
      const held = holdings.find(([c]) => c.coinType === l.coinType)![1];
      assert.ok(l.amount <= held - (l.coinType === SUI_TYPE ? GAS_BUDGET : 0n), "spends only what it holds");
      assert.ok(l.amount > 0n);
      if (l.coinType === SUI_TYPE) {
        // the SUI paid is worth at least its share of the total at the oracle price (cents × 10^9 / price-cents)
        const p = (suiPrice as { ok: true; price: { price: bigint } }).price.price;
        assert.ok(l.amount * p >= l.fiatMinor * ONE_SUI, "rounded against the buyer");
      } else {
        assert.equal(l.amount, l.fiatMinor * 10_000n);
      }
    }
  }
  assert.ok(paid > 100, `enough paying cases (${paid})`);
});

test("USDC without a fresh feed pays at par in a USD store only; elsewhere it cannot be priced", () => {
  const holdings: Setup["holdings"] = [
    [USDC, 100_000_000n],
    [SUI, ONE_SUI],
  ];
  const stale: Setup["prices"] = [[USDC, { ok: false, reason: "stale" }]];
  const par = quote({ total: 1234n, holdings, prices: stale, requested: "USDC" });
  assert.deepEqual(legs(par), [["USDC", 12_340_000n, 1234n]]);
  assert.equal(par.legs[0]!.usdPrice.source, "par");
  assert.equal(
    codeOf(() =>
      quote({
        total: 1234n,
        currency: "EUR",
        fx: price(108n, -2),
        holdings,
        prices: stale,
        requested: "USDC",
      }),
    ),
    "insufficient_liquidity",
  );
  // another stablecoin gets no such pass
  assert.equal(
    codeOf(() =>
      quote({
        accepted: ["USDT", "SUI"],
        total: 100n,
        holdings: [
          [USDT, 100_000_000n],
          [SUI, ONE_SUI],
        ],
        prices: [[USDT, { ok: false, reason: "stale" }]],
        requested: "USDT",
      }),
    ),
    "insufficient_liquidity",
  );
});
