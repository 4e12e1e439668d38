import assert from "node:assert/strict";
import { test } from "node:test";

import { prepareCsvImport, prepareJsonImport } from "./rows";

// Each row of a catalog file checked with the product form's own schema: prices in major units to minor units
// (more decimals than the currency has: refused, never rounded), rows sharing a handle as one product's variants,
// and every refusal naming its row (header = row 1) and its column.

const HEADER = "handle,title,variant_title,sku,price,inventory,tags,attributes,image_urls";

test("good rows become product inputs in minor units; a shared handle groups variants", () => {
  const { items, rejected, total } = prepareCsvImport(
    [
      HEADER,
      "mug,Mug,,M1,12.5,3,Kitchen|Gift,colour=blue|size=L,https://cdn.example.com/m.jpg|https://cdn.example.com/m2.jpg",
      "tee,Tee,Small,T-S,19.99,1,,,",
      "TEE,,Large,T-L,21,0,,,",
      ",Sticker,,,0.5,,,,",
    ].join("\n"),
    "USD",
  );
  assert.deepEqual(rejected, []);
  assert.equal(total, 3);
  assert.deepEqual(
    items.map((i) => [i.rows, i.input.title, i.input.variants.map((v) => [v.title, v.price, v.inventory])]),
    [
      [[2], "Mug", [["Default", 1250, 3]]],
      [
        [3, 4],
        "Tee",
        [
          ["Small", 1999, 1],
          ["Large", 2100, 0],
        ],
      ],
      [[5], "Sticker", [["Default", 50, 0]]],
    ],
  );
  assert.deepEqual(items[0]!.input.tags, ["kitchen", "gift"]);
  assert.deepEqual(items[0]!.input.attributes, [
    { name: "colour", value: "blue" },
    { name: "size", value: "L" },
  ]);
  assert.equal(items[0]!.input.images.length, 2);
});

test("bad rows are rejected with row, column and message; the good ones still come through", () => {
  const { items, rejected } = prepareCsvImport(
    [
      HEADER,
      "a,Fine,,,1,1,,,",
      "b,Too precise,,,1.001,1,,,",
      "c,,,,1,1,,,",
      "d,Negative stock,,,1,-2,,,",
      "e,Bad image,,,1,1,,,ftp://example.com/a.png",
      "f,Twice,Small,DUP,1,1,,,",
      "f,,Large,DUP,1,1,,,",
      "g,Yen style,,,abc,1,,,",
      "h,Unquoted, comma,,,1,1,,,",
    ].join("\n"),
    "USD",
  );
  assert.deepEqual(
    items.map((i) => i.input.title),
    ["Fine"],
  );
  assert.deepEqual(
    rejected.map((r) => [r.row, r.field]),
    [
      [3, "price"],
      [4, "title"],
      [5, "inventory"],
      [6, "image_urls"],
      [8, "sku"],
      [9, "price"],
      [10, "row"],
    ],
  );
  assert.match(rejected[0]!.message, /USD has 2 decimals: 1.001 has 3/);
  assert.match(rejected[4]!.message, /SKU DUP is used twice/);
});

test("the currency's exponent decides: whole yen, three-decimal dinars", () => {
  const yen = prepareCsvImport("title,price\nA,1200\nB,1200.5", "JPY");
  assert.deepEqual(
    yen.items.map((i) => i.input.variants[0]!.price),
    [1200],
  );
  assert.match(yen.rejected[0]!.message, /JPY has no minor unit/);
  const kwd = prepareCsvImport("title,price\nA,1.234", "KWD");
  assert.equal(kwd.items[0]!.input.variants[0]!.price, 1234);
});

test("JSON items use the same schema and count from 1", () => {
  const { items, rejected } = prepareJsonImport(
    JSON.stringify({
      products: [
        { title: "A", variants: [{ title: "Default", price: "3", inventory: 1 }] },
        { title: "B", variants: [{ title: "Default", price: "3", inventory: 1 }], colour: "red" },
      ],
    }),
    "EUR",
  );
  assert.equal(items.length, 1);
  assert.deepEqual(
    rejected.map((r) => r.row),
    [2],
  );
});
