// API links end up in front of people: an agent shows the buyer an order's permalink_url, a developer pastes a
// checkout URL into the address bar. Without the envelope headers the API can only answer missing_request_id in
// JSON, which tells a person nothing. So a plain browser visit (a GET that asks for HTML and carries none of the
// headers or credentials an API client sends) to the store API or an MCP endpoint gets a short page that says
// what the link is and where a buyer looks instead. Anything an API client sends is answered as before; the global
// catalog (/catalog/…) stays JSON because it is open to anonymous callers and readable in a browser as it is.
// A store that does not exist keeps the API's not_found answer, so no page names a store we do not have.

import "server-only";

import { toAppError } from "@/lib/core/errors";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";

const API_CLIENT_HEADERS = ["request-id", "ucp-agent", "x-api-key", "authorization", "idempotency-key"];

/** A GET that a browser's address bar makes: HTML preferred over JSON, no API-client header. */
export const isBrowserVisit = (request: Request): boolean => {
  if (request.method !== "GET") return false;
  if (API_CLIENT_HEADERS.some((name) => request.headers.has(name))) return false;
  const accept = (request.headers.get("accept") ?? "").toLowerCase();
  const html = accept.indexOf("text/html");
  if (html < 0) return false;
  const json = accept.indexOf("application/json");
  return json < 0 || html < json;
};

type LinkDescription = { title: string; what: string; instead: { text: string; href: string } | null };

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * What an API path is, in words for a person; null for paths that keep their API answer. `storeName` is the
 * display name of the store of a /s/<slug>/ path (null: no such store).
 */
export const describeApiLink = (pathname: string, storeName: string | null): LinkDescription | null => {
  const parts = pathname.split("/").filter(Boolean).map(decode);
  const myOrders = { text: "See your orders", href: "/account/orders" };
  if (parts.length === 1 && parts[0] === "mcp") {
    return {
      title: "MCP endpoint",
      what: "This is the service's Model Context Protocol endpoint: AI agents connect to it with an MCP client (Streamable HTTP) to search every store's catalog.",
      instead: { text: "Browse the demo stores", href: "/" },
    };
  }
  if (parts.length === 2 && parts[0] === "account" && parts[1] === "mcp") {
    return {
      title: "Your account's MCP endpoint",
      what: "This is the Model Context Protocol endpoint of buyer accounts: an AI agent you linked uses it, with the permission you gave it, to read your orders and account.",
      instead: { text: "See the agents you linked", href: "/account/agents" },
    };
  }
  if (parts[0] !== "s" || parts.length < 3 || storeName === null) return null;
  // discovery documents (the store's profile) are JSON for everyone, browsers included
  if (parts[2] === ".well-known") return null;
  const store = storeName;
  const [section, id] = [parts[2]!, parts[3]];
  if (section === "orders" && id !== undefined && parts.length === 4) {
    return {
      title: `Order ${id}`,
      what: `This link is the order's record in the ${store} store's commerce API, for the agent or platform that placed it.`,
      instead: { text: "Buyers: see your orders and their status", href: myOrders.href },
    };
  }
  if (section === "checkout-sessions") {
    return {
      title: id === undefined ? "Checkout API" : `Checkout ${id}`,
      what: `This link is a checkout session in the ${store} store's commerce API, driven by an AI agent. When a checkout needs you (to pay, or to confirm a card), the agent gives you a payment link instead: open that one.`,
      instead: myOrders,
    };
  }
  if (section === "carts") {
    return {
      title: id === undefined ? "Cart API" : `Cart ${id}`,
      what: `This link is a cart in the ${store} store's commerce API, filled by an AI agent. A cart shared with you comes as its own cart link from the agent.`,
      instead: myOrders,
    };
  }
  if (section === "mcp") {
    return {
      title: `MCP endpoint of ${store}`,
      what: `This is the ${store} store's Model Context Protocol endpoint: AI agents connect to it with an MCP client to shop in this store.`,
      instead: { text: "Browse the demo stores", href: "/" },
    };
  }
  return {
    title: `Commerce API of ${store}`,
    what: `This link belongs to the ${store} store's commerce API (UCP), which AI agents and platforms call with their own headers and keys.`,
    instead: myOrders,
  };
};

const storeNameOf = async (pathname: string): Promise<string | null> => {
  const match = /^\/s\/([^/]+)\//.exec(pathname);
  if (!match) return null;
  try {
    return (await getStoreOrThrow(decode(match[1]!))).name;
  } catch (thrown) {
    if (toAppError(thrown).code === "store_not_found") return null;
    throw thrown;
  }
};

/** The page for a browser visit to an API link, or null when the path keeps its API answer. */
export const browserVisitPage = async (request: Request): Promise<Response | null> => {
  const { pathname } = new URL(request.url);
  const described = describeApiLink(pathname, await storeNameOf(pathname));
  if (!described) return null;
  const { title, what, instead } = described;
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Agent Commerce Service</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f8fafc;color:#0f172a}main{max-width:36rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #e2e8f0;border-radius:.75rem}h1{font-size:1.25rem;margin:0 0 1rem}p{margin:0 0 1rem;color:#334155}a{color:#1d4ed8}small{color:#64748b}</style>
</head><body><main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(what)}</p>
${instead ? `<p><a href="${escapeHtml(instead.href)}">${escapeHtml(instead.text)}</a></p>` : ""}
<p><small>Developers: this URL answers API clients that send the UCP headers (Request-Id, UCP-Agent) and a key or token; see <a href="/.well-known/ucp">the service profile</a> and <a href="/openapi.json">the OpenAPI description</a>.</small></p>
</main></body></html>`;
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      vary: "Accept",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
    },
  });
};
