import { expect, test } from "@playwright/test";

// Catalog search over real HTTP on the built server with the demo catalog: the static /catalog/* routes get no
// route params from Next in a production build (a crash the in-process handler tests cannot see), and a
// search → cursor → next page → lookup round trip works on the seeded data.

type SearchBody = {
  products: { id: string; metadata: { svc_seller: { slug: string } } }[];
  pagination: { has_next_page: boolean; cursor?: string; total_count: number };
  facets: { sellers: { value: string }[]; payment: { value: string }[] };
};

test("POST /catalog/search → next page → POST /catalog/lookup on the demo catalog, no envelope headers", async ({
  request,
}) => {
  const first = await request.post("/catalog/search", {
    data: { query: "jacket", pagination: { limit: 5 } },
  });
  expect(first.status()).toBe(200);
  const page1 = (await first.json()) as SearchBody;
  expect(page1.products.length).toBe(5);
  expect(page1.pagination.has_next_page).toBe(true);
  expect(page1.pagination.total_count).toBeGreaterThan(5);
  expect(page1.facets.sellers.length).toBeGreaterThan(0);

  const second = await request.post("/catalog/search", {
    data: { query: "jacket", pagination: { limit: 5, cursor: page1.pagination.cursor } },
  });
  expect(second.status()).toBe(200);
  const page2 = (await second.json()) as SearchBody;
  const ids = new Set([...page1.products, ...page2.products].map((p) => p.id));
  expect(ids.size).toBe(10);

  const lookup = await request.post("/catalog/lookup", { data: { ids: [...ids].slice(0, 3) } });
  expect(lookup.status()).toBe(200);
  expect(((await lookup.json()) as { products: unknown[] }).products.length).toBe(3);
});

test("payable in USDC: the payment facet value works as a filter on the demo catalog", async ({
  request,
}) => {
  const browse = (await (
    await request.post("/catalog/search", { data: { filters: { available: true } } })
  ).json()) as SearchBody;
  const usdc = browse.facets.payment.find((f) => f.value === "USDC");
  expect(usdc).toBeTruthy();
  const res = await request.post("/catalog/search", { data: { filters: { payment: ["USDC"] } } });
  expect(res.status()).toBe(200);
  expect(((await res.json()) as SearchBody).pagination.total_count).toBeGreaterThan(0);
});
