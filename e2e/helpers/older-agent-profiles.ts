// Platform (agent) profiles as agents speaking the older UCP versions publish them (docs/ucp-versions.md §1.1),
// each valid against its tag's schema: 2026-01-11 `ucp.json#/$defs/discovery_profile` (capabilities an array,
// one service object, handlers in a top-level `payment`), 2026-01-23 `ucp.json#/$defs/platform_schema` (maps).

export type OlderProfileOptions = {
  /** Declares the AP2 mandate extension and publishes this key (card completion needs both). */
  mandateKey?: object;
  webhookUrl?: string;
};

const CHECKOUT_FAMILY = [
  ["dev.ucp.shopping.checkout", "checkout", undefined],
  ["dev.ucp.shopping.fulfillment", "fulfillment", "dev.ucp.shopping.checkout"],
  ["dev.ucp.shopping.discount", "discount", "dev.ucp.shopping.checkout"],
  ["dev.ucp.shopping.buyer_consent", "buyer_consent", "dev.ucp.shopping.checkout"],
  ["dev.ucp.shopping.order", "order", undefined],
] as const;
const AP2 = ["dev.ucp.shopping.ap2_mandate", "ap2_mandate", "dev.ucp.shopping.checkout"] as const;

const family = (options: OlderProfileOptions) =>
  options.mandateKey ? [...CHECKOUT_FAMILY, AP2] : CHECKOUT_FAMILY;

const entry = (version: string, file: string, parent: string | undefined, webhookUrl?: string) => ({
  version,
  spec: `https://ucp.dev/specification/${file.replace("_", "-")}`,
  schema: `https://ucp.dev/schemas/shopping/${file}.json`,
  ...(parent ? { extends: parent } : {}),
  ...(file === "order" && webhookUrl ? { config: { webhook_url: webhookUrl } } : {}),
});

/** A 2026-01-11 agent profile (declares `version`, so `"2026-1-11"` etc. make the malformed variants). */
export const agentProfile0111 = (
  baseUrl: string,
  version = "2026-01-11",
  options: OlderProfileOptions = {},
) => ({
  ucp: {
    version,
    services: {
      "dev.ucp.shopping": {
        version,
        spec: "https://ucp.dev/specification/overview",
        rest: {
          schema: "https://ucp.dev/services/shopping/rest.openapi.json",
          endpoint: `${baseUrl}/agent/ucp`,
        },
      },
    },
    capabilities: family(options).map(([name, file, parent]) => ({
      name,
      ...entry(version, file, parent, options.webhookUrl),
    })),
  },
  payment: { handlers: [] },
  signing_keys: options.mandateKey ? [options.mandateKey] : [],
});

/** A 2026-01-23 agent profile. */
export const agentProfile0123 = (
  baseUrl: string,
  version = "2026-01-23",
  options: OlderProfileOptions = {},
) => ({
  ucp: {
    version,
    services: {
      "dev.ucp.shopping": [
        {
          version,
          spec: "https://ucp.dev/specification/overview",
          transport: "rest",
          endpoint: `${baseUrl}/agent/ucp`,
          schema: "https://ucp.dev/services/shopping/rest.openapi.json",
        },
      ],
    },
    capabilities: Object.fromEntries(
      family(options).map(([name, file, parent]) => [
        name,
        [entry(version, file, parent, options.webhookUrl)],
      ]),
    ),
    payment_handlers: {},
  },
  signing_keys: options.mandateKey ? [options.mandateKey] : [],
});
