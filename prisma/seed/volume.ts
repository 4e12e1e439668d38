// Volume data for the flat-growth measurements: orders (with their checkout, lines, events and card payment),
// idempotency records and products (with variants; the catalog's statement triggers build their search documents)
// generated inside the database with INSERT … SELECT FROM generate_series, a batch per transaction, so a million
// rows never travel through this process and memory stays bounded. Rows are spread over existing stores (the demo
// seed's by default) and reference real variants of each store, so every foreign key holds and the service reads
// the generated rows as it reads its own: an order renders, a product is found by search, the worker's polls see
// nothing due (the generated events are fanned out, the mails sent).
// Every id carries a run tag (`ord_v<tag>_<n>`), so a second run adds to the first instead of colliding.
import { randomBytes } from "node:crypto";

import type { PrismaClient } from "@/lib/generated/prisma/client";

export const VOLUME_DEFAULTS = { orders: 1_000_000, idempotency: 1_000_000, products: 500_000 } as const;
export const DEFAULT_VOLUME_BATCH = 50_000;

export type VolumeCounts = { orders: number; idempotency: number; products: number };

export type VolumeOptions = VolumeCounts & {
  /** Only these stores (slugs); default every store of the database. */
  stores?: string[];
  /** Rows per transaction (orders count their checkout, lines, events and payment as one row). */
  batch?: number;
  /** Generate even when a store is in live mode (never against production data). */
  force?: boolean;
  /** Called after each batch: which part, rows done in it, and its total. */
  onProgress?: (part: keyof VolumeCounts, done: number, total: number) => void;
  /** The principals generated orders and idempotency records belong to (`key:<id>`); default 40 made-up ones. */
  principals?: string[];
  /** Wall clock of the generated history (the newest rows); default now. */
  now?: Date;
};

export type VolumeResult = VolumeCounts & { tag: string; stores: string[]; ms: number };

export class VolumeRefused extends Error {}

/** Variants per store that generated order lines cycle through (fewer when a store has fewer). */
const LINE_VARIANTS_PER_STORE = 200;
/** Platform principals the generated orders and idempotency records belong to. */
const PRINCIPALS = 40;
const ORDER_HISTORY_SECONDS = 365 * 86_400;
/** Idempotency records live 48 h: the generated ones are spread over the last 47 h, so none is purged at once. */
const IDEMPOTENCY_HISTORY_SECONDS = 47 * 3_600;
const IDEMPOTENCY_RETENTION = "48 hours";

// Words of generated product titles and descriptions: English (the search configuration stems English), and
// "volume" in every title so a search can tell generated products apart.
const ADJECTIVES = [
  "alpine",
  "compact",
  "classic",
  "rugged",
  "featherweight",
  "modular",
  "heritage",
  "urban",
  "thermal",
  "waterproof",
  "insulated",
  "breathable",
  "foldable",
  "wireless",
  "ceramic",
  "carbon",
];
const MATERIALS = [
  "merino",
  "nylon",
  "cotton",
  "leather",
  "bamboo",
  "steel",
  "titanium",
  "walnut",
  "linen",
  "canvas",
  "aluminium",
  "oak",
];
const NOUNS = [
  "backpack",
  "jacket",
  "lantern",
  "kettle",
  "headphones",
  "boots",
  "tent",
  "blanket",
  "skillet",
  "charger",
  "hoodie",
  "bottle",
  "speaker",
  "gloves",
  "mug",
  "duffel",
  "keyboard",
  "scarf",
  "stove",
  "sandals",
];
const CATEGORIES = [
  "Sporting Goods > Outdoor Recreation > Camping & Hiking",
  "Apparel & Accessories > Clothing",
  "Electronics > Audio",
  "Home & Garden > Kitchen & Dining",
  "Apparel & Accessories > Shoes",
  "Electronics > Computers > Accessories",
  "Home & Garden > Linens & Bedding",
  "Sporting Goods > Fitness",
];

const sqlArray = (words: readonly string[]): string => `ARRAY[${words.map((w) => `'${w}'`).join(",")}]`;

// The CTEs every order statement of a batch starts from: the batch's numbers with their store, the lines of each
// order (1–3, variants cycling through the store's list) and each order's subtotal. Params: $1 first n, $2 last n,
// $3 stores [{s, id, slug, currency}], $4 variants [{s, i, id, title, price}], $5 store count, $6 variants per
// store, $7 tag, $8 total orders, $9 newest timestamp, $10 principals [{i, id}].
const ORDER_CTES = `
WITH st AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(s int, id text, slug text, currency text)),
v AS MATERIALIZED (SELECT * FROM jsonb_to_recordset($4::jsonb) AS r(s int, i int, id text, title text, price int)),
pr AS (SELECT * FROM jsonb_to_recordset($10::jsonb) AS r(i int, id text)),
g AS (
  SELECT n, (n % $5::int) AS s, ('v' || $7::text || '_' || n) AS k,
         ($9::timestamp - make_interval(secs => ($8::int - n)::float8 * ${ORDER_HISTORY_SECONDS} / $8::int)) AS at
  FROM generate_series($1::int, $2::int) AS n
),
x AS MATERIALIZED (
  SELECT g.n, l.pos, g.s * $6::int + (g.n * 7 + l.pos * 13) % $6::int AS vk
  FROM g CROSS JOIN LATERAL generate_series(0, g.n % 3) AS l(pos)
),
lines AS (
  SELECT x.n, x.pos, v.id AS variant_id, v.title, v.price, 1 + (x.n + x.pos) % 2 AS qty
  FROM x JOIN v ON v.s * $6::int + v.i = x.vk
),
tot AS (SELECT n, sum(price * qty)::int AS sub FROM lines GROUP BY n),
o AS (
  SELECT g.*, st.id AS store_id, st.slug, st.currency, pr.id AS principal, tot.sub, tot.sub + 599 AS total,
         CASE WHEN g.n % 5 = 0 THEN 'delivered' ELSE 'paid' END AS status,
         jsonb_build_array(
           jsonb_build_object('type', 'subtotal', 'amount', tot.sub, 'display_text', 'Subtotal'),
           jsonb_build_object('type', 'fulfillment', 'amount', 599, 'display_text', 'Shipping'),
           jsonb_build_object('type', 'total', 'amount', tot.sub + 599, 'display_text', 'Total')) AS totals,
         jsonb_build_object('email', 'buyer' || (g.n % 5000) || '@example.com', 'first_name', 'Volume',
           'last_name', 'Buyer ' || (g.n % 5000)) AS buyer
  FROM g JOIN st ON st.s = g.s JOIN tot ON tot.n = g.n JOIN pr ON pr.i = g.n % ${PRINCIPALS}
)`;

const ORDER_FULFILLMENT = `jsonb_build_object(
  'destination', jsonb_build_object('line1', (o.n % 900 + 1) || ' Main St', 'city', 'Denver', 'region', 'CO',
    'postal_code', '80202', 'country', 'US'),
  'option', jsonb_build_object('id', 'standard', 'title', 'Standard shipping'))`;

const ORDER_STATEMENTS = [
  `${ORDER_CTES}
INSERT INTO "checkout_sessions" ("id", "store_id", "principal_id", "status", "currency", "buyer", "totals",
  "payment_instruments", "version", "expires_at", "created_at", "updated_at")
SELECT 'chk_' || k, store_id, principal, 'completed', currency, buyer, totals,
  '[{"id":"pi_1","handler_id":"svc.card","type":"card","selected":true}]'::jsonb, 4,
  at + interval '6 hours', at - interval '2 minutes', at
FROM o`,
  `${ORDER_CTES}
INSERT INTO "checkout_line_items" ("id", "checkout_id", "variant_id", "quantity", "price_minor", "position")
SELECT 'chli_' || g.k || '_' || lines.pos, 'chk_' || g.k, variant_id, qty, price, lines.pos
FROM lines JOIN g ON g.n = lines.n`,
  `${ORDER_CTES}
INSERT INTO "orders" ("id", "store_id", "checkout_id", "principal_id", "status", "currency", "buyer", "totals",
  "fulfillment", "handler_id", "payment_ref", "confirmation_mail", "created_at", "updated_at")
SELECT 'ord_' || k, store_id, 'chk_' || k, principal, status::order_status, currency, buyer, totals,
  ${ORDER_FULFILLMENT}, 'svc.card', 'pi_' || k, 'sent', at,
  CASE WHEN status = 'delivered' THEN at + interval '3 days' ELSE at END
FROM o`,
  `${ORDER_CTES}
INSERT INTO "order_line_items" ("id", "order_id", "variant_id", "title", "price_minor", "quantity",
  "quantity_fulfilled", "position")
SELECT 'oli_' || g.k || '_' || lines.pos, 'ord_' || g.k, variant_id, title, price, qty,
  CASE WHEN g.n % 5 = 0 THEN qty ELSE 0 END, lines.pos
FROM lines JOIN g ON g.n = lines.n`,
  // placed, then paid (and delivered for every fifth): the feed and the per-order sequence as completion writes
  // them; already fanned out, as the worker leaves them
  `${ORDER_CTES}
INSERT INTO "order_events" ("id", "store_id", "order_id", "sequence", "kind", "payload", "fanned_out_at",
  "created_at")
SELECT 'evt_' || o.k || '_' || e.seq, store_id, 'ord_' || o.k, e.seq, e.kind,
  jsonb_build_object('id', 'ord_' || o.k, 'checkout_id', 'chk_' || o.k, 'currency', currency, 'totals', totals,
    'status', e.kind),
  at + make_interval(secs => e.seq), at + make_interval(secs => e.seq)
FROM o CROSS JOIN LATERAL (VALUES (1, 'order.placed'), (2, 'order.paid'), (3, 'order.delivered')) AS e(seq, kind)
WHERE e.seq < 3 OR o.status = 'delivered'
ORDER BY o.n, e.seq`,
  `${ORDER_CTES}
INSERT INTO "payment_attempts" ("id", "checkout_id", "store_id", "rail", "provider_ref", "amount", "currency",
  "state", "is_current", "card_brand", "card_last4", "created_at", "updated_at")
SELECT 'pay_' || k, 'chk_' || k, store_id, 'svc.card', 'pi_' || k, total, currency, 'succeeded', true, 'visa',
  '4242', at - interval '5 seconds', at
FROM o`,
  `${ORDER_CTES}
INSERT INTO "card_payments" ("checkout_id", "store_id", "attempt", "payment_intent_id", "status", "amount",
  "currency", "created_at", "updated_at")
SELECT 'chk_' || k, store_id, 1, 'pi_' || k, 'succeeded', total, currency, at - interval '5 seconds', at
FROM o`,
  `${ORDER_CTES}
INSERT INTO "order_fulfillment_events" ("id", "order_id", "type", "occurred_at", "line_items", "carrier",
  "tracking_number")
SELECT 'fev_' || k, 'ord_' || k, 'delivered', at + interval '3 days', li.items, 'UPS', '1Z' || upper(k)
FROM o JOIN (
  SELECT n, jsonb_agg(jsonb_build_object('id', 'oli_v' || $7::text || '_' || n || '_' || pos, 'quantity', qty)) AS items
  FROM lines WHERE n % 5 = 0 GROUP BY n
) AS li ON li.n = o.n
WHERE status = 'delivered'`,
];

// $1 first n, $2 last n, $3 stores (as above), $4 store count, $5 tag, $6 total records, $7 newest timestamp,
// $8 principals. The scope hash is the service's own (sha-256 of the JCS array of principal, store, operation,
// key): a generated record is found by the same unique-index lookup a retried request makes.
const IDEMPOTENCY_STATEMENT = `
WITH st AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(s int, id text, slug text, currency text)),
pr AS (SELECT * FROM jsonb_to_recordset($8::jsonb) AS r(i int, id text)),
g AS (
  SELECT n, st.slug, pr.id AS principal,
         (ARRAY['create_checkout','update_checkout','get_checkout','complete_checkout'])[1 + n % 4] AS op,
         'vol-' || $5::text || '-' || n AS key,
         ($7::timestamp - make_interval(secs => ($6::int - n)::float8 * ${IDEMPOTENCY_HISTORY_SECONDS} / $6::int)) AS at
  FROM generate_series($1::int, $2::int) AS n
  JOIN st ON st.s = n % $4::int JOIN pr ON pr.i = n % ${PRINCIPALS}
)
INSERT INTO "idempotency_records" ("id", "scope_hash", "principal_id", "store_slug", "operation", "key",
  "request_hash", "state", "response_status", "response_body", "created_at", "locked_until", "expires_at")
SELECT 'idem_v' || $5::text || '_' || n,
  encode(sha256(convert_to('["' || principal || '","' || slug || '","' || op || '","' || key || '"]', 'UTF8')), 'hex'),
  principal, slug, op, key, encode(sha256(convert_to('request|' || $5::text || '|' || n, 'UTF8')), 'hex'),
  'done', CASE WHEN op = 'create_checkout' THEN 201 ELSE 200 END,
  '{"ucp":{"version":"2026-04-08","status":"success"},"id":"chk_v' || $5::text || '_' || n ||
    '","status":"ready_for_complete","currency":"USD","line_items":[' ||
    repeat('{"id":"li","item":{"id":"var","title":"Generated item","price":2500},"quantity":1},', 1 + n % 4) ||
    '{"id":"li_last"}],"totals":[{"type":"total","amount":' || (1000 + n % 90000) || '}]}',
  at, at + interval '30 seconds', at + interval '${IDEMPOTENCY_RETENTION}'
FROM g`;

// $1 first n, $2 last n, $3 stores, $4 store count, $5 tag, $6 total products, $7 newest timestamp.
const PRODUCT_G = `
WITH st AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(s int, id text, slug text, currency text)),
g AS (
  SELECT n, st.id AS store_id, st.currency, 'v' || $5::text || '_' || n AS k,
    (${sqlArray(ADJECTIVES)})[1 + n % ${ADJECTIVES.length}] AS adj,
    (${sqlArray(MATERIALS)})[1 + (n / ${ADJECTIVES.length}) % ${MATERIALS.length}] AS material,
    (${sqlArray(NOUNS)})[1 + (n / ${ADJECTIVES.length * MATERIALS.length}) % ${NOUNS.length}] AS noun,
    (${sqlArray(CATEGORIES)})[1 + n % ${CATEGORIES.length}] AS category,
    ($7::timestamp - make_interval(secs => ($6::int - n)::float8 * ${ORDER_HISTORY_SECONDS} / $6::int)) AS at
  FROM generate_series($1::int, $2::int) AS n JOIN st ON st.s = n % $4::int
)`;

const PRODUCT_STATEMENTS = [
  `${PRODUCT_G}
INSERT INTO "products" ("id", "store_id", "handle", "title", "description_text", "categories", "tags",
  "attributes", "options", "created_at", "updated_at")
SELECT 'prod_' || k, store_id, 'volume-' || replace(k, '_', '-'),
  initcap(adj) || ' ' || initcap(material) || ' ' || initcap(noun) || ' Volume ' || n,
  'A ' || adj || ' ' || noun || ' in ' || material || ', generated for volume measurements. Built to last, easy to care for.',
  ARRAY[category], ARRAY[adj, material, noun, 'volume'],
  jsonb_build_array(jsonb_build_object('name', 'Material', 'value', initcap(material))),
  CASE WHEN n % 3 = 0 THEN '[]'::jsonb ELSE '[{"name":"Size","values":["S","M","L"]}]'::jsonb END,
  at, at
FROM g`,
  `${PRODUCT_G}
INSERT INTO "variants" ("id", "product_id", "store_id", "handle", "title", "sku", "price_minor", "currency",
  "inventory", "weight_grams", "options", "position", "created_at", "updated_at")
SELECT 'var_' || k || '_' || p.pos, 'prod_' || k, store_id, 'volume-' || replace(k, '_', '-') || '-' || p.pos,
  CASE WHEN n % 3 = 0 THEN initcap(adj) || ' ' || initcap(material) || ' ' || initcap(noun) || ' Volume ' || n
       ELSE (ARRAY['S','M','L'])[1 + p.pos] END,
  upper('VOL-' || replace(k, '_', '-') || '-' || p.pos), 500 + (n * 37 + p.pos * 200) % 25000, currency,
  (n * 7 + p.pos) % 40, 200 + (n % 18) * 100,
  CASE WHEN n % 3 = 0 THEN '[]'::jsonb
       ELSE jsonb_build_array(jsonb_build_object('name', 'Size', 'label', (ARRAY['S','M','L'])[1 + p.pos])) END,
  p.pos, at, at
FROM g CROSS JOIN LATERAL generate_series(0, CASE WHEN n % 3 = 0 THEN 0 ELSE 2 END) AS p(pos)`,
];

// A batch need not wait for its WAL flush: losing the last batches of a crash loses generated data only, and
// unlike fsync=off it can never corrupt the database. LOCAL: this transaction only.
const ASYNC_COMMIT = "SET LOCAL synchronous_commit = off";

/** UTC wall time without zone, as Prisma stores DateTime in timestamp(3) columns. */
const wallTime = (date: Date): string => date.toISOString().replace("Z", "");

type StoreRow = { id: string; slug: string; currency: string; mode: string };

export const generateVolume = async (client: PrismaClient, options: VolumeOptions): Promise<VolumeResult> => {
  const started = performance.now();
  const batch = options.batch ?? DEFAULT_VOLUME_BATCH;
  for (const [name, value] of Object.entries({ ...pickCounts(options), batch })) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0`);
  }
  if (batch < 1) throw new RangeError("batch must be at least 1");
  const all = await client.$queryRawUnsafe<StoreRow[]>(
    `SELECT "id", "slug", "currency", "mode"::text AS "mode" FROM "stores" ORDER BY "created_at", "slug"`,
  );
  const live = all.filter((s) => s.mode === "live").map((s) => s.slug);
  if (live.length > 0 && !options.force) {
    throw new VolumeRefused(
      `This database has live-mode stores (${live.join(", ")}): generated orders would sit beside real ones. Use a copy, or pass --force.`,
    );
  }
  const stores = options.stores ? all.filter((s) => options.stores!.includes(s.slug)) : all;
  const missing = (options.stores ?? []).filter((slug) => !stores.some((s) => s.slug === slug));
  if (missing.length > 0) throw new VolumeRefused(`No store "${missing.join('", "')}" in this database.`);
  if (stores.length === 0) {
    throw new VolumeRefused(
      "No store in this database: run the migrations and the demo seed first (npm run db:seed).",
    );
  }
  const storeJson = JSON.stringify(
    stores.map((s, i) => ({ s: i, id: s.id, slug: s.slug, currency: s.currency })),
  );
  const tag = randomBytes(4).toString("hex");
  const principalIds =
    options.principals && options.principals.length > 0
      ? options.principals
      : Array.from({ length: PRINCIPALS }, (_, i) => `key:key_volume${tag}${String(i).padStart(2, "0")}`);
  // cycled to PRINCIPALS entries: the statements pick one by n % PRINCIPALS
  const principals = JSON.stringify(
    Array.from({ length: PRINCIPALS }, (_, i) => ({ i, id: principalIds[i % principalIds.length] })),
  );
  const now = wallTime(options.now ?? new Date());
  const progress = options.onProgress ?? (() => {});

  const inBatches = async (
    part: keyof VolumeCounts,
    total: number,
    statements: readonly string[],
    params: (from: number, to: number) => unknown[],
  ) => {
    for (let from = 0; from < total; from += batch) {
      const to = Math.min(total, from + batch) - 1;
      // a batch of 50,000 orders is tens of seconds on a busy machine: far past Prisma's default 5 s
      await client.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(ASYNC_COMMIT);
          for (const sql of statements) await tx.$executeRawUnsafe(sql, ...params(from, to));
        },
        { timeout: 30 * 60_000, maxWait: 60_000 },
      );
      progress(part, to + 1, total);
    }
  };

  // products first: generated order lines may then point at generated variants as well as seeded ones
  await inBatches("products", options.products, PRODUCT_STATEMENTS, (from, to) => [
    from,
    to,
    storeJson,
    stores.length,
    tag,
    options.products,
    now,
  ]);
  if (options.orders > 0) {
    const variants = JSON.stringify(await lineVariants(client, stores));
    await inBatches("orders", options.orders, ORDER_STATEMENTS, (from, to) => [
      from,
      to,
      storeJson,
      variants,
      stores.length,
      LINE_VARIANTS_PER_STORE,
      tag,
      options.orders,
      now,
      principals,
    ]);
  }
  await inBatches("idempotency", options.idempotency, [IDEMPOTENCY_STATEMENT], (from, to) => [
    from,
    to,
    storeJson,
    stores.length,
    tag,
    options.idempotency,
    now,
    principals,
  ]);
  return {
    ...pickCounts(options),
    tag,
    stores: stores.map((s) => s.slug),
    ms: performance.now() - started,
  };
};

const pickCounts = ({ orders, idempotency, products }: VolumeCounts): VolumeCounts => ({
  orders,
  idempotency,
  products,
});

/** LINE_VARIANTS_PER_STORE variants of each store (cycled when it has fewer), indexed for the order statements. */
const lineVariants = async (client: PrismaClient, stores: { id: string }[]) => {
  const rows: { s: number; i: number; id: string; title: string; price: number }[] = [];
  for (const [s, store] of stores.entries()) {
    const found = await client.$queryRawUnsafe<{ id: string; title: string; price: number }[]>(
      `SELECT v."id", CASE WHEN v."title" = p."title" THEN v."title" ELSE p."title" || ' — ' || v."title" END AS "title",
              v."price_minor" AS "price"
       FROM "variants" v JOIN "products" p ON p."id" = v."product_id"
       WHERE v."store_id" = $1 ORDER BY v."id" LIMIT ${LINE_VARIANTS_PER_STORE}`,
      store.id,
    );
    if (found.length === 0) throw new VolumeRefused(`Store ${store.id} has no variant to order.`);
    for (let i = 0; i < LINE_VARIANTS_PER_STORE; i++) rows.push({ s, i, ...found[i % found.length]! });
  }
  return rows;
};
