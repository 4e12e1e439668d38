import { readFileSync } from "node:fs";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";

// The mounted bridge in the built service over real HTTP: the official SDK client calls {base_url}/bridge/mcp with
// the demo key only; the bridge calls the service back over HTTP as a client (its own Request-Id, UCP-Agent and
// idempotency keys), and the store fetches the bridge's agent profile ({base_url}/bridge/.well-known/ucp, its key
// created on first use beside the demo key) to verify the mandate the bridge signed. A whole card purchase.

const STORE = "summit-trail-outfitters";

const dataDir = () => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  return path.dirname(dir);
};
const demoKey = (): string =>
  (JSON.parse(readFileSync(path.join(dataDir(), "demo-platform-key.json"), "utf8")) as { key: string }).key;

const json = (result: unknown): Record<string, unknown> => {
  const r = result as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: { text: string }[];
  };
  if (r.isError) throw new Error(r.content?.[0]?.text ?? "tool error");
  return r.structuredContent ?? {};
};

test("bridge over HTTP — search, checkout, confirm_purchase (card), get_order, all through /bridge/mcp", async ({
  baseURL,
}) => {
  const client = new Client({ name: "bridge-http-spec", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/bridge/mcp", baseURL), {
      requestInit: { headers: { "x-api-key": demoKey() } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("confirm_purchase");
    const call = async (name: string, args: Record<string, unknown>) =>
      json(await client.callTool({ name, arguments: args }));

    const found = (await call("search_products", { query: "jacket", filters: { seller: STORE } })) as {
      products: {
        variants: { id: string; availability?: { available?: boolean }; price: { formatted: string } }[];
      }[];
    };
    const variant = found.products
      .flatMap((p) => p.variants)
      .find((v) => v.availability?.available !== false);
    expect(variant, JSON.stringify(found).slice(0, 500)).toBeTruthy();
    expect(variant!.price.formatted).toMatch(/^\$\d/);
    const created = (await call("create_checkout", {
      store_slug: STORE,
      items: [{ id: variant!.id, quantity: 1 }],
      buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
      shipping_address: {
        street_address: "1 Market St",
        address_locality: "Denver",
        address_region: "CO",
        postal_code: "80202",
        address_country: "US",
      },
    })) as { id: string; fulfillment: { methods: { groups: { options: { id: string }[] }[] }[] } };
    const option = created.fulfillment.methods[0]?.groups[0]?.options[0]?.id;
    expect(option).toBeTruthy();
    await call("update_checkout", { store_slug: STORE, id: created.id, shipping_method_id: option });
    const confirmed = (await call("confirm_purchase", {
      checkouts: [{ store_slug: STORE, checkout_id: created.id }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    })) as { status: string; results: { order?: { id: string } }[] };
    expect(confirmed.status, JSON.stringify(confirmed)).toBe("completed");
    const orderId = confirmed.results[0]?.order?.id;
    expect(orderId).toBeTruthy();
    const order = await call("get_order", { store_slug: STORE, id: orderId });
    expect(order.id).toBe(orderId);
  } finally {
    await client.close();
  }
  // the hosted bridge's identity: a key file beside the demo key, published in its profile
  const stored = JSON.parse(readFileSync(path.join(dataDir(), "bridge-agent-key.json"), "utf8")) as {
    kid: string;
  };
  const profile = (await (await fetch(new URL("/bridge/.well-known/ucp", baseURL))).json()) as {
    signing_keys: { kid: string }[];
  };
  expect(profile.signing_keys.map((k) => k.kid)).toEqual([stored.kid]);
});
