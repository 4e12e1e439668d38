import { randomUUID } from "node:crypto";

import { openRawConnection, type RawAnswer, type RawConnection } from "./raw-http";

// A bounded mix of requests on a few keep-alive connections, as a fuzzer's pooled client sends them: GET and POST,
// with and without bodies, small ones and ones past the size the server reads ahead, chunked ones, bodies the
// server answers before reading (a refused key, a missing header), GETs that carry a body, pipelined pairs,
// `Expect: 100-continue`, routes the server answers itself and routes it leaves to Next, and pauses within the
// keep-alive time the server advertises. Every request must be answered; a connection the server closes (it said
// `Connection: close`) is replaced, as a client does.

export type MixOptions = {
  port: number;
  store: string;
  apiKey: string;
  agentProfile: string;
  connections: number;
  requestsPerConnection: number;
  /** One answer may take this long before the request counts as unanswered. */
  answerTimeoutMs: number;
  /** Pauses between requests of a connection, some of them this long (below the advertised keep-alive time). */
  longPauseMs: number;
  seed: number;
};

export type Unanswered = { connection: number; index: number; request: string; error: string };

/** A small deterministic generator (mulberry32), so a failing mix can be replayed by its seed. */
const random = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

type Request = { label: string; method: string; head: string; body?: Buffer; pipelined?: Request };

const crlf = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;

const chunked = (body: Buffer): Buffer => {
  const parts: Buffer[] = [];
  for (let i = 0; i < body.length; i += 8 * 1024) {
    const part = body.subarray(i, i + 8 * 1024);
    parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
};

const requestsOf = (o: MixOptions) => {
  const envelope = (key: boolean) => [
    "Host: 127.0.0.1",
    `Request-Id: ${randomUUID()}`,
    `UCP-Agent: profile="${o.agentProfile}"`,
    ...(key ? [`X-API-Key: ${o.apiKey}`] : []),
  ];
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const padded = (bytes: number) => json({ line_items: [], pad: "x".repeat(bytes) });
  const post = (
    label: string,
    path: string,
    body: Buffer,
    { key = true, chunk = false, extra = [] as string[], method = "POST" } = {},
  ): Request => ({
    label,
    method,
    head: crlf([
      `${method} ${path} HTTP/1.1`,
      ...envelope(key),
      `Idempotency-Key: ${randomUUID()}`,
      "Content-Type: application/json",
      chunk ? "Transfer-Encoding: chunked" : `Content-Length: ${body.length}`,
      ...extra,
    ]),
    body: chunk ? chunked(body) : body,
  });
  const get = (label: string, path: string, { key = true, body = null as Buffer | null } = {}): Request => ({
    label,
    method: "GET",
    head: crlf([
      `GET ${path} HTTP/1.1`,
      ...envelope(key),
      ...(body ? ["Content-Type: application/json", `Content-Length: ${body.length}`] : []),
    ]),
    ...(body ? { body } : {}),
  });
  const s = `/s/${o.store}`;
  const mcpCall = json({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const mcpExtra = ["Accept: application/json, text/event-stream"];
  return [
    () => get("GET order events", `${s}/order-events`),
    () => get("GET missing checkout", `${s}/checkout-sessions/chk_missing`),
    () => get("GET checkout, bad key", `${s}/checkout-sessions/chk_missing`, { key: false }),
    () => get("GET with a body", `${s}/orders/ord_missing`, { body: padded(2_000) }),
    () => get("GET with a large body", `${s}/orders/ord_missing`, { body: padded(100_000) }),
    () => get("GET profile", "/.well-known/ucp"),
    () => get("GET store profile", `${s}/.well-known/ucp`),
    () => get("GET page", "/"),
    () => get("GET unknown path", "/nope/nothing"),
    () => ({
      label: "HEAD profile",
      method: "HEAD",
      head: crlf(["HEAD /.well-known/ucp HTTP/1.1", ...envelope(false)]),
    }),
    () => post("POST search", `${s}/catalog/search`, json({ query: "tent" })),
    () => post("POST search, chunked", `${s}/catalog/search`, json({ query: "boot" }), { chunk: true }),
    () => post("POST cart, invalid", `${s}/carts`, json({ line_items: "no" })),
    () => post("POST cart, bad key, 2 KB", `${s}/carts`, padded(2_000), { key: false }),
    () => post("POST cart, bad key, 100 KB", `${s}/carts`, padded(100_000), { key: false }),
    () =>
      post("POST cart, bad key, 100 KB chunked", `${s}/carts`, padded(100_000), { key: false, chunk: true }),
    () => post("POST cart, 300 KB", `${s}/carts`, padded(300_000)),
    () => post("POST cart, 300 KB chunked", `${s}/carts`, padded(300_000), { chunk: true }),
    () => post("POST cart, not JSON", `${s}/carts`, Buffer.from("{not json")),
    () => post("PUT missing cart", `${s}/carts/cart_missing`, json({ line_items: [] }), { method: "PUT" }),
    () =>
      post("DELETE cart (no such method)", `${s}/carts/cart_missing`, padded(1_000), { method: "DELETE" }),
    () =>
      post("POST cart, expect 100-continue", `${s}/carts`, padded(30_000), {
        key: false,
        extra: ["Expect: 100-continue"],
      }),
    () => post("POST store MCP", `${s}/mcp`, mcpCall, { extra: mcpExtra }),
    () => post("POST store MCP, bad key, 20 KB", `${s}/mcp`, padded(20_000), { key: false, extra: mcpExtra }),
    () => post("POST store MCP, 40 KB", `${s}/mcp`, padded(40_000), { extra: mcpExtra }),
    () =>
      post("POST store MCP, bad key, 100 KB", `${s}/mcp`, padded(100_000), { key: false, extra: mcpExtra }),
    () => post("POST cart, bad key, 40 KB", `${s}/carts`, padded(40_000), { key: false }),
    () =>
      post("POST global MCP, 100 KB chunked", "/mcp", padded(100_000), {
        key: false,
        chunk: true,
        extra: mcpExtra,
      }),
    () => post("POST token, bad grant, 80 KB", "/ucp/oauth2/token", padded(80_000), { key: false }),
    () => post("POST page", "/", padded(50_000), { key: false }),
    () => post("POST unknown path, 100 KB", "/nope/nothing", padded(100_000), { key: false }),
  ];
};

/** Runs the mix; resolves with every request that got no answer (none, when the server answers them all). */
export const runKeepAliveMix = async (o: MixOptions): Promise<{ sent: number; unanswered: Unanswered[] }> => {
  const next = random(o.seed);
  const kinds = requestsOf(o);
  const unanswered: Unanswered[] = [];
  let sent = 0;
  const pick = (): Request => kinds[Math.floor(next() * kinds.length)]!();
  const within = <T>(promise: Promise<T>, what: string): Promise<T> =>
    Promise.race([
      promise,
      new Promise<T>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no answer within ${o.answerTimeoutMs} ms (${what})`)),
          o.answerTimeoutMs,
        ),
      ),
    ]);
  const drive = async (connection: number) => {
    let socket: RawConnection = await openRawConnection(o.port);
    for (let index = 0; index < o.requestsPerConnection; index++) {
      const roll = next();
      if (roll < 0.04) await new Promise((resolve) => setTimeout(resolve, o.longPauseMs));
      else if (roll < 0.3) await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 40)));
      if (!socket.isOpen()) socket = await openRawConnection(o.port);
      const request = pick();
      // a pipelined pair now and then: the second request written before the first is answered
      const second = next() < 0.12 ? pick() : null;
      const answers: Promise<RawAnswer>[] = [socket.send(request.method, request.head, request.body)];
      if (second) answers.push(socket.send(second.method, second.head, second.body));
      const labels = [request.label, ...(second ? [`${second.label} (pipelined)`] : [])];
      sent += answers.length;
      const results = await Promise.allSettled(answers.map((a, i) => within(a, labels[i]!)));
      let closes = false;
      results.forEach((result, i) => {
        // a request pipelined behind an answer that said close is one the server was right not to read
        if (result.status === "rejected" && closes) return;
        if (result.status === "rejected") {
          unanswered.push({
            connection,
            index,
            request: labels[i]!,
            error: (result.reason as Error).message,
          });
          closes = true;
        } else if (result.value.headers.connection?.toLowerCase() === "close") closes = true;
      });
      // a client gives up on a connection that said close or failed, and opens another
      if (closes) {
        socket.close();
        socket = await openRawConnection(o.port);
      }
    }
    socket.close();
  };
  await Promise.all(Array.from({ length: o.connections }, (_, i) => drive(i)));
  return { sent, unanswered };
};
