import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedCatalogProduct, seedPlatformKey, seedStore } from "../../factories";
import { rest, TEST_BASE_URL } from "../../helpers/app-client";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { assertMcpProtocolError } from "../../helpers/mcp-errors";
import { assertTransportError, assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// search_catalog on every surface: global REST (anonymous, no envelope headers needed), per-store REST (envelope
// required, scoped to the store), global MCP and per-store MCP through the official MCP SDK client. Bad input on
// REST and MCP: invalid_request with a JSONPath, never a 500, never a slow query.

type SearchBody = {
  products: { id: string; metadata: { svc_seller: { slug: string; endpoint: string } } }[];
  pagination: { has_next_page: boolean; cursor?: string; total_count: number };
  facets: { sellers: { value: string }[] };
};
const RESPONSE = "shopping/catalog_search.json#/$defs/search_response";
const WORD = `qx${randomBytes(3).toString("hex")}`; // a word only this file's products contain

let store: Store;
let other: Store;
const mine: string[] = [];
let theirs: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ name: "Search Surface Store" });
  other = await seedStore({ name: "Other Surface Store" });
  for (let i = 0; i < 3; i++) {
    const p = await seedCatalogProduct(store, {
      title: `Granite ${WORD} Mug ${i}`,
      variants: [{ priceMinor: 1000 + i, inventory: 4 }],
    });
    mine.push(p.id);
  }
  theirs = (await seedCatalogProduct(other, { title: `Granite ${WORD} Plate` })).id;
});
after(closeTestDatabase);

const sdkSearch = async (endpoint: string, catalog: Record<string, unknown>) => {
  const client = await connectMcpClient(endpoint);
  try {
    const result = await client.callTool({
      name: "search_catalog",
      arguments: { meta: toolMeta(), catalog },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    return result.structuredContent as SearchBody;
  } finally {
    await client.close();
  }
};

const restSearch = async (path: string, body: unknown) => {
  const res = await rest<SearchBody>("POST", path, { body });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

type Call = (body: Record<string, unknown>) => Promise<SearchBody>;
/** The global search over REST and over MCP. */
const restAndMcp: [string, Call][] = [
  ["REST", (b) => restSearch("/catalog/search", b)],
  ["MCP", (b) => sdkSearch("/mcp", b)],
];
/** Every product id of a search, page after page of `limit`. */
const allPages = async (call: Call, body: Record<string, unknown>, limit: number): Promise<string[]> => {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await call({ ...body, pagination: { limit, ...(cursor ? { cursor } : {}) } });
    ids.push(...page.products.map((p) => p.id));
    cursor = page.pagination.cursor;
  } while (cursor);
  return ids;
};
const surfaces: [string, Call, "global" | "store"][] = [
  ["global REST", (b) => restSearch("/catalog/search", b), "global"],
  ["store REST", (b) => restSearch(`/s/${store.slug}/catalog/search`, b), "store"],
  ["global MCP", (b) => sdkSearch("/mcp", b), "global"],
  ["store MCP", (b) => sdkSearch(`/s/${store.slug}/mcp`, b), "store"],
];

describe("search_catalog surfaces", () => {
  for (const [name, call, scope] of surfaces) {
    test(`${name}: schema-valid page with seller metadata, pagination and facets`, async () => {
      const body = await call({ query: WORD, pagination: { limit: 2 } });
      assertUcpSchema(RESPONSE, body);
      const expectedTotal = scope === "store" ? 3 : 4;
      assert.equal(body.pagination.total_count, expectedTotal);
      assert.equal(body.products.length, 2);
      assert.equal(body.pagination.has_next_page, true);
      if (scope === "store") {
        assert.ok(
          body.products.every((p) => mine.includes(p.id)),
          "a store surface sees only its products",
        );
        assert.deepEqual(
          body.facets.sellers.map((s) => s.value),
          [store.slug],
        );
      }
      const first = body.products[0]!;
      assert.ok(first.metadata.svc_seller.endpoint.startsWith(`${TEST_BASE_URL}/s/`));
    });
  }

  test("a cursor from one page continues on the same surface over MCP", async () => {
    const page1 = await sdkSearch("/mcp", { query: WORD, pagination: { limit: 3 } });
    const page2 = await sdkSearch("/mcp", {
      query: WORD,
      pagination: { limit: 3, cursor: page1.pagination.cursor },
    });
    const all = [...page1.products, ...page2.products].map((p) => p.id);
    assert.deepEqual([...all].sort(), [...mine, theirs].sort());
    assert.equal(page2.pagination.has_next_page, false);
  });

  test("global REST works without Request-Id and UCP-Agent (anonymous tier); a platform key and profile are accepted", async () => {
    const res = await rest<SearchBody>("POST", "/catalog/search", {
      headers: { "request-id": "", "ucp-agent": "" },
      body: { query: WORD },
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.headers.get("request-id"));
    const key = await seedPlatformKey();
    const keyed = await rest<SearchBody>("POST", "/catalog/search", {
      headers: { "x-api-key": key.key },
      body: { query: WORD },
    });
    assert.equal(keyed.status, 200, keyed.text);
    assert.equal(keyed.body.pagination.total_count, 4);
  });

  test("the search document follows product, variant and store changes (database triggers)", async () => {
    const db = await getDb();
    const shop = await seedStore({ name: "Trigger Shop" });
    const word = `tr${randomBytes(3).toString("hex")}`;
    const p = await seedCatalogProduct(shop, {
      title: `Copper ${word} Kettle`,
      variants: [{ priceMinor: 5000, inventory: 1 }],
    });
    const find = async (body: Record<string, unknown>) =>
      (await restSearch("/catalog/search", body)).products.map((x) => x.id);
    assert.deepEqual(await find({ query: word }), [p.id]);
    await db.variant.updateMany({ where: { productId: p.id }, data: { inventory: 0 } });
    assert.deepEqual(await find({ query: word }), [], "sold out: hidden by default");
    assert.deepEqual(await find({ query: word, filters: { available: false } }), [p.id]);
    await db.variant.updateMany({ where: { productId: p.id }, data: { inventory: 5, priceMinor: 700 } });
    assert.deepEqual(
      await find({ query: word, filters: { price: { max: 800 } } }),
      [p.id],
      "new price indexed",
    );
    await db.product.update({
      where: { id: p.id },
      data: { title: "Copper Teapot", descriptionText: "A teapot", tags: ["brewing"] },
    });
    assert.deepEqual(await find({ query: word }), [], "old title words are gone");
    assert.deepEqual(await find({ query: "teapot", filters: { tags: ["brewing"], seller: shop.slug } }), [
      p.id,
    ]);
    await db.store.update({
      where: { id: shop.id },
      data: {
        cryptoEnabled: true,
        acceptedCoins: ["SUI"],
      },
    });
    assert.deepEqual(
      await find({ filters: { payment: ["sui"], seller: shop.slug } }),
      [p.id],
      "store rails indexed",
    );
    await db.product.delete({ where: { id: p.id } });
    assert.deepEqual(
      await find({ filters: { seller: shop.slug, available: false } }),
      [],
      "deleted product gone",
    );
  });

  test("a stock decrement or an edit of an unsearched column does not rewrite the search document; a change it shows does", async () => {
    const db = await getDb();
    const shop = await seedStore({ name: "Stock Shop" });
    const word = `st${randomBytes(3).toString("hex")}`;
    const p = await seedCatalogProduct(shop, {
      title: `Slate ${word} Bowl`,
      variants: [
        { priceMinor: 2500, inventory: 3 },
        { priceMinor: 900, inventory: 1 },
      ],
    });
    // xmin changes whenever the row is rewritten (a new row version), even to identical values
    const version = async () =>
      (
        await db.$queryRawUnsafe<{ v: string; available: boolean; price: number | null }[]>(
          `SELECT xmin::text AS v, available, price_min_available AS price
           FROM catalog_search_documents WHERE product_id = $1`,
          p.id,
        )
      )[0]!;
    const variants = await db.variant.findMany({
      where: { productId: p.id },
      orderBy: { priceMinor: "desc" },
    });
    const [dear, cheap] = [variants[0]!, variants[1]!];
    const start = await version();
    assert.deepEqual([start.available, start.price], [true, 900]);

    await db.variant.update({ where: { id: dear.id }, data: { inventory: { decrement: 1 } } });
    assert.equal((await version()).v, start.v, "3 → 2 in stock changes nothing searchable: not rewritten");
    await db.variant.update({ where: { id: dear.id }, data: { title: "Renamed variant", weightGrams: 40 } });
    await db.product.update({ where: { id: p.id }, data: { media: [], url: "/bowl" } });
    assert.equal((await version()).v, start.v, "columns search does not read: not rewritten");

    await db.variant.update({ where: { id: cheap.id }, data: { inventory: 0 } });
    const soldOut = await version();
    assert.notEqual(soldOut.v, start.v);
    assert.deepEqual([soldOut.available, soldOut.price], [true, 2500], "the cheap variant sold out");
    const found = await restSearch("/catalog/search", { query: word, filters: { price: { max: 1000 } } });
    assert.deepEqual(found.products, [], "no longer found at the sold-out variant's price");

    await db.product.update({ where: { id: p.id }, data: { tags: ["stoneware"] } });
    assert.notEqual((await version()).v, soldOut.v, "a tag is searchable: rewritten");
    const tagged = await restSearch("/catalog/search", { query: word, filters: { tags: ["stoneware"] } });
    assert.deepEqual(
      tagged.products.map((x) => x.id),
      [p.id],
    );
  });

  test("one word: title matches first, then body matches, pages in exactly ts_rank order across the boundary", async () => {
    const db = await getDb();
    const shop = await seedStore({ name: "Rank Shop" });
    const word = `rk${randomBytes(3).toString("hex")}`;
    const specs: [string, string, string[]][] = [
      [`${word} Lantern`, `A ${word} with ${word} inside`, []],
      [`Brass ${word} Lamp`, "Brass", []],
      [`${word} ${word} Candle`, "Wax", []],
      ["Plain Lamp", `A ${word} lamp, ${word} and ${word}`, []],
      ["Tagged Lamp", "Glass", [word]],
      ["Quiet Lamp", `One ${word}`, []],
      ["Loud Lamp", `${word} first, then ${word}`, []],
    ];
    for (const [title, description, tags] of specs)
      await seedCatalogProduct(shop, { title, description, tags });
    const expected = (
      await db.$queryRawUnsafe<{ id: string }[]>(
        `SELECT product_id AS id FROM catalog_search_documents
         WHERE store_id = $1 AND document @@ plainto_tsquery('english', $2)
         ORDER BY ts_rank(document, plainto_tsquery('english', $2)) DESC, product_id`,
        shop.id,
        word,
      )
    ).map((r) => r.id);
    assert.equal(expected.length, specs.length);
    const paged = await allPages(restAndMcp[0]![1], { query: word, filters: { seller: shop.slug } }, 2);
    assert.deepEqual(paged, expected, "pages of 2 (tiers crossed mid-page)");
    const one = await restSearch("/catalog/search", { query: word, filters: { seller: shop.slug } });
    assert.deepEqual(
      one.products.map((p) => p.id),
      expected,
      "one page",
    );
  });

  test("a one-word search's title rows hold the word's rank and follow edits and deletes; a filter past the walk's bound still finds its page", async () => {
    const db = await getDb();
    // every title lexeme of every document has exactly its row, with the rank a search of that one lexeme gives
    const drift = async () =>
      (
        await db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM (
             (SELECT d.product_id, l AS lexeme, ts_rank(d.document, catalog_search_lexeme_query(l)) AS rank
              FROM catalog_search_documents d, unnest(tsvector_to_array(d.title_document)) l
              EXCEPT SELECT product_id, lexeme, rank FROM catalog_search_title_terms)
             UNION ALL
             (SELECT product_id, lexeme, rank FROM catalog_search_title_terms
              EXCEPT SELECT d.product_id, l, ts_rank(d.document, catalog_search_lexeme_query(l))
              FROM catalog_search_documents d, unnest(tsvector_to_array(d.title_document)) l)) x`,
        )
      )[0]!.n;
    const rowsOf = (productId: string, word: string) =>
      db.$queryRawUnsafe<{ rank: number; expected: number }[]>(
        `SELECT t.rank, ts_rank(d.document, plainto_tsquery('english', $2)) AS expected
         FROM catalog_search_title_terms t JOIN catalog_search_documents d ON d.product_id = t.product_id
         WHERE t.product_id = $1 AND t.lexeme = ANY (tsvector_to_array(to_tsvector('english', $2)))`,
        productId,
        word,
      );
    const shop = await seedStore({ name: "Title Rows Shop" });
    const word = `tw${randomBytes(3).toString("hex")}`;
    const p = await seedCatalogProduct(shop, { title: `Cedar ${word} Box`, description: "A box" });
    const [first] = await rowsOf(p.id, word);
    assert.ok(first, "the title's word has its row");
    assert.equal(first.rank, first.expected, "the rank a search of the word gives");
    assert.equal(await drift(), 0);

    await db.product.update({
      where: { id: p.id },
      data: { descriptionText: `${word}, a ${word} of cedar` },
    });
    const [more] = await rowsOf(p.id, word);
    assert.ok(more && more.rank > first.rank, "the word twice more in the description ranks higher");
    assert.equal(more.rank, more.expected);
    assert.equal(await drift(), 0);

    await db.product.update({ where: { id: p.id }, data: { title: "Cedar Box" } });
    assert.deepEqual(await rowsOf(p.id, word), [], "out of the title: no row");
    const body = await restSearch("/catalog/search", { query: word });
    assert.deepEqual(
      body.products.map((x) => x.id),
      [p.id],
      "still found by its description",
    );
    await db.product.delete({ where: { id: p.id } });
    assert.equal(
      (
        await db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM catalog_search_title_terms WHERE product_id = $1`,
          p.id,
        )
      )[0]!.n,
      0,
      "deleted with its document",
    );
    assert.equal(await drift(), 0);

    // 520 title matches of one word in one store (more than the walk reads), then one in another store that comes
    // last in rank order (equal ranks, the greatest id): the walk finds none of its store, so ranking the matches must
    const crowd = await seedStore({ name: "Crowded Shop" });
    const lone = await seedStore({ name: "Lone Shop" });
    const common = `c9${randomBytes(3).toString("hex")}`; // a digit: no stemming, the word is its lexeme
    const products = [
      ...Array.from({ length: 520 }, (_, i) => ({
        id: `prod_${common}_a${String(i).padStart(4, "0")}`,
        store: crowd,
      })),
      { id: `prod_${common}_z`, store: lone },
    ];
    await db.product.createMany({
      data: products.map(({ id, store }) => ({
        id,
        storeId: store.id,
        handle: id,
        title: `Oak ${common}`,
        descriptionText: "Oak",
      })),
    });
    await db.variant.createMany({
      data: products.map(({ id, store }) => ({
        id: `var_${id}`,
        storeId: store.id,
        productId: id,
        handle: id,
        title: "Default",
        priceMinor: 1000,
        currency: store.currency,
        inventory: 5,
        position: 0,
      })),
    });
    for (const [name, call] of restAndMcp) {
      const filtered = await call({ query: common, filters: { seller: lone.slug } });
      assert.deepEqual(
        filtered.products.map((x) => x.id),
        [`prod_${common}_z`],
        `${name}: the lone store's match, past the walk's bound`,
      );
      const top = await call({ query: common, pagination: { limit: 3 } });
      assert.deepEqual(
        top.products.map((x) => x.id),
        products.slice(0, 3).map((x) => x.id),
        `${name}: unfiltered, the first rows of the walk`,
      );
    }

    // The same word misspelt (its alternatives: the misspelling's own lexeme, which two of the lone store's products
    // have in an attribute, and the word): the walk of the word's title rows stops at its bound within the crowd,
    // those two products rank above 0.5/k from their tags and attribute, so they alone would fill a page of one; the
    // lone title match left unread ranks above them, and the page must say so.
    const typo = `${common.slice(0, -1)}x`;
    for (const n of [1, 2])
      await seedCatalogProduct(lone, {
        title: `Pine Shelf ${n}`,
        description: `${common} ${common}`,
        tags: [common],
        categories: [`${common} ${common}`],
        attributes: [{ name: "Finish", value: `${typo} ${typo} ${typo} ${typo}` }],
      });
    const ranked = (
      await db.$queryRawUnsafe<{ id: string; k: number }[]>(
        `SELECT product_id AS id, ts_rank(document, plainto_tsquery('english', $2) || plainto_tsquery('english', $3)) AS k
         FROM catalog_search_documents WHERE store_id = $1
         ORDER BY k DESC, product_id`,
        lone.id,
        typo,
        common,
      )
    ).map((x) => x.id);
    assert.equal(ranked[0], `prod_${common}_z`);
    for (const [name, call] of restAndMcp)
      assert.deepEqual(
        await allPages(call, { query: typo, filters: { seller: lone.slug } }, 1),
        ranked,
        `${name}: a misspelling, pages of one`,
      );
  });

  test("a word to correct: pages in exactly ts_rank order of the word and its alternatives, across the 0.5/k bound", async () => {
    const db = await getDb();
    const shop = await seedStore({ name: "Typo Rank Shop" });
    // digits keep the words out of the English stemmer: each is its own lexeme
    const r = `t9${randomBytes(3).toString("hex")}`;
    const [lamp, lamb, typo] = [`${r}lamp`, `${r}lamb`, `${r}lamx`];
    const specs: [string, string, string[], string[]][] = [
      [`${lamp} Lantern`, "Lantern", [], []], // one lexeme in the title: 0.61 / k
      [`Brass ${lamb} Light`, `A ${lamb}`, [], []], // a little more
      [`${lamp} ${lamb} Duo`, "Duo", [], []], // both in the title
      ["Plain Box", "Box", [lamp, lamb], [`${lamp} ${lamb} ${lamp} ${lamb}`]], // both, no title, above the title rows
      ["Tagged Box", `${lamp} ${lamb}`, [lamp, lamb], []], // both, no title, just above 0.5 / k
      ["Tagged Bowl", `${lamp} ${lamb} ${lamp} ${lamb}`, [lamp, lamb], []], // both, a little more
      ["Quiet Box", `${lamp} and ${lamb}`, [], []], // both, no title, below 0.5 / k
      ["Quiet Bowl", `${lamp} and ${lamb} and ${lamp}`, [], []], // a little more, still below the next one
      ["Single Tag", "Box", [lamp], []], // one, no title: below 0.5 / k
      ["Loud Box", lamb, [], []], // one, no title, lowest
      ["Other Box", "Nothing", [], []],
    ];
    for (const [title, description, tags, categories] of specs)
      await seedCatalogProduct(shop, { title, description, tags, categories });
    const expected = (
      await db.$queryRawUnsafe<{ id: string }[]>(
        `SELECT product_id AS id FROM catalog_search_documents
         WHERE store_id = $1 AND document @@ (plainto_tsquery('english', $2) || plainto_tsquery('english', $3)
                                              || plainto_tsquery('english', $4))
         ORDER BY ts_rank(document, plainto_tsquery('english', $2) || plainto_tsquery('english', $3)
                                    || plainto_tsquery('english', $4)) DESC, product_id`,
        shop.id,
        typo,
        lamp,
        lamb,
      )
    ).map((x) => x.id);
    assert.equal(expected.length, specs.length - 1);
    const pagesEqual = async (query: string, seller: string, want: string[]) => {
      for (const [name, call] of restAndMcp)
        for (const limit of [1, 2, 3, 10])
          assert.deepEqual(
            await allPages(call, { query, filters: { seller } }, limit),
            want,
            `${name} "${query}": pages of ${limit}`,
          );
    };
    await pagesEqual(typo, shop.slug, expected);

    // two alternatives of one stem (quillbottle, quillbottles): k counts lexemes, not words
    const stems = await seedStore({ name: "Stem Shop" });
    for (const [title, description, tags] of [
      ["Quillbottle Flask", "Flask", []],
      ["Steel Quillbottles", "A quillbottle", []],
      ["Plain Flask", "Flask", ["quillbottles"]],
      ["Other Flask", "Flask", []],
    ] as const)
      await seedCatalogProduct(stems, { title, description, tags: [...tags] });
    const byStem = (
      await db.$queryRawUnsafe<{ id: string }[]>(
        `SELECT product_id AS id FROM catalog_search_documents
         WHERE store_id = $1 AND document @@ (plainto_tsquery('english', 'quillbotle')
                                              || plainto_tsquery('english', 'quillbottle'))
         ORDER BY ts_rank(document, plainto_tsquery('english', 'quillbotle')
                                    || plainto_tsquery('english', 'quillbottle')) DESC, product_id`,
        stems.id,
      )
    ).map((x) => x.id);
    assert.equal(byStem.length, 3);
    await pagesEqual("quillbotle", stems.slug, byStem);
  });

  test("filters.categories: a text no category contains matches the close ones (word similarity), any of the values", async () => {
    const shop = await seedStore({ name: "Category Shop" });
    const word = `cg${randomBytes(3).toString("hex")}`;
    const mug = await seedCatalogProduct(shop, {
      title: `Enamel ${word} Mug`,
      categories: ["Home & Garden > Kitchen > Drinkware"],
    });
    const coat = await seedCatalogProduct(shop, {
      title: `Wool ${word} Coat`,
      categories: ["Apparel & Accessories > Clothing > Outerwear"],
    });
    const find = async (categories: string[], query?: string) =>
      (
        await restSearch("/catalog/search", {
          ...(query ? { query } : {}),
          filters: { seller: shop.slug, categories },
        })
      ).products
        .map((x) => x.id)
        .sort();
    assert.deepEqual(await find(["garden"]), [mug.id], "contained");
    assert.deepEqual(await find(["drinkwsre"]), [mug.id], "no category contains it: the close one");
    assert.deepEqual(await find(["drinkwsre"], word), [mug.id], "with a word");
    assert.deepEqual(await find(["outerwear", "drinkwsre"]), [mug.id, coat.id].sort(), "any of the values");
    assert.deepEqual(await find(["clothing"]), [coat.id], "contained: no similar category added");
    assert.deepEqual(await find(["zzqqxx"]), [], "nothing close");
  });

  test("a category browse by price: pages of several category texts merge into one sorted list, each product once", async () => {
    const shop = await seedStore({ name: "Category Price Shop" });
    const tag = `cp${randomBytes(3).toString("hex")}`;
    const kitchen = `${tag} Home > Kitchen`;
    const decor = `${tag} Home > Decor`;
    const garden = `${tag} Garden`;
    // [category, in-stock price, out-of-stock price (cheaper, counted only with available: false)]
    const rows: [string, number, number | null][] = [
      [kitchen, 900, null],
      [decor, 900, 100],
      [kitchen, 300, null],
      [garden, 500, null],
      [decor, 1200, null],
      [kitchen, 300, 250],
      [decor, 50, null],
      [kitchen, 700, null],
    ];
    const seeded: { id: string; category: string; available: number; any: number }[] = [];
    for (const [category, inStock, soldOut] of rows) {
      const p = await seedCatalogProduct(shop, {
        title: `Item ${seeded.length}`,
        categories: [category],
        variants: [
          { priceMinor: inStock, inventory: 3 },
          ...(soldOut === null ? [] : [{ priceMinor: soldOut, inventory: 0 }]),
        ],
      });
      seeded.push({ id: p.id, category, available: inStock, any: soldOut ?? inStock });
    }
    const sorted = (xs: typeof seeded, price: "available" | "any", dir: 1 | -1) =>
      [...xs].sort((a, b) => dir * (a[price] - b[price]) || dir * (a.id < b.id ? -1 : 1)).map((x) => x.id);
    // "home" and "kitchen" both name the kitchen text: its products must come once
    const home = seeded.filter((x) => x.category !== garden);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ categories: [`${tag} home`, "kitchen"] }, sorted(home, "available", 1)],
      [{ categories: [`${tag} home`, "kitchen"], available: false }, sorted(home, "any", 1)],
      [{ categories: [tag] }, sorted(seeded, "available", 1)],
      [{ categories: [tag], available: false }, sorted(seeded, "any", 1)],
    ];
    for (const [name, call] of restAndMcp) {
      for (const [filters, ascending] of cases) {
        // price_desc breaks ties by the greater id first: the ascending order reversed
        for (const [sort, expected] of [
          ["price_asc", ascending],
          ["price_desc", [...ascending].reverse()],
        ] as const) {
          const body = { sort, filters: { ...filters, seller: shop.slug } };
          for (const limit of [1, 3, 50]) {
            assert.deepEqual(
              await allPages(call, body, limit),
              expected,
              `${name} ${sort} ${JSON.stringify(filters)} limit ${limit}`,
            );
          }
        }
      }
    }
  });

  test("words + price_asc / price_desc / newest: pages (walked in sort order, then sorted) equal one sorted list", async () => {
    const shop = await seedStore({ name: "Sorted Shop" });
    const word = `so${randomBytes(3).toString("hex")}`;
    const prices = [700, 300, 300, 900, 100, 500, 300];
    const matching: { id: string; price: number; at: number }[] = [];
    for (const [i, priceMinor] of prices.entries()) {
      const at = Date.UTC(2026, 0, 1 + (i % 4));
      const p = await seedCatalogProduct(shop, {
        title: i % 3 === 0 ? `Other Item ${i}` : `${word} Item ${i}`,
        description: i % 3 === 0 ? "no match" : word,
        createdAt: new Date(at),
        variants: [{ priceMinor, inventory: 2 }],
      });
      if (i % 3 !== 0) matching.push({ id: p.id, price: priceMinor, at });
    }
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    const expected: Record<string, string[]> = {
      price_asc: [...matching].sort((a, b) => a.price - b.price || byId(a, b)).map((x) => x.id),
      price_desc: [...matching].sort((a, b) => b.price - a.price || byId(b, a)).map((x) => x.id),
      newest: [...matching].sort((a, b) => b.at - a.at || byId(b, a)).map((x) => x.id),
    };
    for (const sort of ["price_asc", "price_desc", "newest"]) {
      const body = { query: word, sort, filters: { seller: shop.slug } };
      const one = (await restSearch("/catalog/search", body)).products.map((p) => p.id);
      assert.deepEqual(one, expected[sort], sort);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await restSearch("/catalog/search", {
          ...body,
          pagination: { limit: 1, ...(cursor ? { cursor } : {}) },
        });
        paged.push(...page.products.map((p) => p.id));
        cursor = page.pagination.cursor;
      } while (cursor);
      assert.deepEqual(paged, one, sort);
    }
  });

  test("per-store REST requires the envelope headers like every /s/ route", async () => {
    const res = await rest("POST", `/s/${store.slug}/catalog/search`, {
      headers: { "request-id": "" },
      body: { query: WORD },
    });
    assert.equal(res.status, 400);
  });

  test("tools/list advertises search_catalog and lookup_catalog as read-only on both MCP endpoints", async () => {
    for (const endpoint of ["/mcp", `/s/${store.slug}/mcp`]) {
      const client = await connectMcpClient(endpoint);
      try {
        const { tools } = await client.listTools();
        for (const name of ["search_catalog", "lookup_catalog"]) {
          const tool = tools.find((t) => t.name === name);
          assert.ok(tool, `${endpoint} lists ${name}`);
          assert.equal(tool.annotations?.readOnlyHint, true);
        }
      } finally {
        await client.close();
      }
    }
  });
});

// ── bad input ─────────────────────────────────────────────────────────────────────────────────────────────────

const BAD_INPUTS: [string, Record<string, unknown>, string][] = [
  ["pagination alone", { pagination: { limit: 5 } }, "$"],
  ["an empty body", {}, "$"],
  ["empty filters", { filters: {} }, "$"],
  ["unknown sort", { query: "mug", sort: "cheapest" }, "$.sort"],
  ["relevance without a query", { filters: { available: false }, sort: "relevance" }, "$.sort"],
  ["negative limit", { query: "mug", pagination: { limit: -1 } }, "$.pagination.limit"],
  ["zero limit", { query: "mug", pagination: { limit: 0 } }, "$.pagination.limit"],
  ["huge limit", { query: "mug", pagination: { limit: 1_000_000 } }, "$.pagination.limit"],
  ["fractional limit", { query: "mug", pagination: { limit: 2.5 } }, "$.pagination.limit"],
  ["a 10 kB query", { query: "a".repeat(10_240) }, "$.query"],
  ["a query of punctuation only", { query: "%_'\";--()*" }, "$.query"],
  ["price as a string", { filters: { price: { max: "100" } } }, "$.filters.price.max"],
  ["price as a float", { filters: { price: { max: 19.99 } } }, "$.filters.price.max"],
  ["negative price", { filters: { price: { max: -5 } } }, "$.filters.price.max"],
  ["bad currency", { filters: { price: { max: 100, currency: "dollars" } } }, "$.filters.price.currency"],
  ["tags not an array", { filters: { tags: "red" } }, "$.filters.tags"],
  ["available not a boolean", { filters: { available: "no" } }, "$.filters.available"],
  [
    "attributes without value",
    { filters: { attributes: [{ name: "Color" }] } },
    "$.filters.attributes[0].value",
  ],
  ["an unknown filter", { filters: { colour: "red" } }, "$.filters"],
  [
    "a forged cursor",
    { query: "mug", pagination: { cursor: "eyJ2IjoxfQ.c2lnbmF0dXJl" } },
    "$.pagination.cursor",
  ],
  ["garbage cursor", { query: "mug", pagination: { cursor: "not a cursor" } }, "$.pagination.cursor"],
];

const assertInvalidRest = async (path: string, body: unknown, jsonPath: string) => {
  const res = await rest<{ messages: { code: string; path?: string }[] }>("POST", path, { body });
  assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${res.text}`);
  assertTransportError(res.body);
  assert.equal(res.body.messages[0]?.code, "invalid_request");
  assert.equal(res.body.messages[0]?.path, jsonPath);
};

const assertInvalidMcp = (client: McpClient, catalog: unknown, jsonPath: string) =>
  assertMcpProtocolError(
    client.callTool({ name: "search_catalog", arguments: { meta: toolMeta(), catalog } }),
    {
      rpcCode: -32602,
      code: "invalid_request",
      path: jsonPath,
    },
  );

describe("search_catalog bad input: invalid_request with a JSONPath", () => {
  for (const [what, body, path] of BAD_INPUTS) {
    test(`REST: ${what} → 400 at ${path}`, async () => {
      await assertInvalidRest("/catalog/search", body, path);
    });
  }

  test("MCP (SDK client): every bad input → -32602 invalid_request with the same JSONPath", async () => {
    const client = await connectMcpClient(`/s/${store.slug}/mcp`);
    try {
      for (const [, body, path] of BAD_INPUTS) await assertInvalidMcp(client, body, path);
    } finally {
      await client.close();
    }
  });

  test("a cursor with one changed character is refused (tamper-evident)", async () => {
    const page = await restSearch("/catalog/search", { query: WORD, pagination: { limit: 1 } });
    const cursor = page.pagination.cursor!;
    const i = cursor.indexOf(".") - 3;
    const flipped = `${cursor.slice(0, i)}${cursor[i] === "A" ? "B" : "A"}${cursor.slice(i + 1)}`;
    await assertInvalidRest(
      "/catalog/search",
      { query: WORD, pagination: { cursor: flipped } },
      "$.pagination.cursor",
    );
  });

  test("a cursor from another search (query, filters, sort or store changed) is refused", async () => {
    const page = await restSearch("/catalog/search", { query: WORD, pagination: { limit: 1 } });
    const cursor = page.pagination.cursor!;
    const others = [
      { query: `${WORD} mug`, pagination: { cursor } },
      { query: WORD, filters: { available: false }, pagination: { cursor } },
      { query: WORD, sort: "newest", pagination: { cursor } },
    ];
    for (const body of others) await assertInvalidRest("/catalog/search", body, "$.pagination.cursor");
    await assertInvalidRest(
      `/s/${store.slug}/catalog/search`,
      { query: WORD, pagination: { cursor } },
      "$.pagination.cursor",
    );
    const client = await connectMcpClient("/mcp");
    try {
      await assertInvalidMcp(
        client,
        { query: `${WORD} other`, pagination: { cursor } },
        "$.pagination.cursor",
      );
    } finally {
      await client.close();
    }
  });

  test("the same cursor with another page size is accepted (page size is not part of the search)", async () => {
    const page = await restSearch("/catalog/search", { query: WORD, pagination: { limit: 1 } });
    const next = await restSearch("/catalog/search", {
      query: WORD,
      pagination: { limit: 3, cursor: page.pagination.cursor },
    });
    assert.equal(next.products.length, 3);
  });

  test("SQL and regex metacharacters in every text field are plain text: 200, no match, no error", async () => {
    const nasty = `'); DROP TABLE products; -- .* \\ %_ [a-z]+ (?:x) ${WORD}`;
    const res = await rest<SearchBody>("POST", "/catalog/search", {
      body: {
        query: nasty,
        filters: {
          categories: [nasty],
          tags: [nasty],
          seller: nasty,
          attributes: [{ name: nasty, value: nasty }],
          payment: [nasty.slice(0, 40)],
        },
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.products, []);
    const still = await restSearch("/catalog/search", { query: WORD });
    assert.equal(still.pagination.total_count, 4, "the catalog is untouched");
  });
});
