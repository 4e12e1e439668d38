import { request as httpRequest } from "node:http";

import { expect, test } from "@playwright/test";

// Rate limits on the built service over real sockets: the budget of an anonymous caller is its socket's address
// as our HTTP server stamps it (through Next, to the route handler), whatever X-Forwarded-For or address header
// the client sends. Two loopback source addresses (127.0.0.1 and 127.0.0.2, both loopback on Linux) have two
// budgets. The quotas here are the large ones playwright.config.ts gives every served app.

type Answer = { status: number; headers: Record<string, string | string[] | undefined> };

const get = (path: string, localAddress: string, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: Number(process.env.E2E_PORT), path, localAddress, headers },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end();
  });

const remaining = (answer: Answer): number => {
  const match = /^"anonymous";r=(\d+);t=(\d+)$/.exec(String(answer.headers.ratelimit ?? ""));
  if (!match) throw new Error(`no anonymous RateLimit header: ${JSON.stringify(answer.headers)}`);
  return Number(match[1]);
};

test("RateLimit headers on a real answer; the budget follows the socket address, not a spoofed header", async () => {
  const first = await get("/.well-known/ucp", "127.0.0.1");
  expect(first.status).toBe(200);
  expect(first.headers["ratelimit-policy"]).toMatch(/^"anonymous";q=\d+;w=60$/);
  const before = remaining(first);

  // a client naming another address in every header we might believe: still 127.0.0.1's budget
  const spoofed = await get("/.well-known/ucp", "127.0.0.1", {
    "x-forwarded-for": "203.0.113.9",
    forwarded: "for=203.0.113.10",
    "x-acs-client-address": "203.0.113.11",
  });
  expect(remaining(spoofed)).toBeLessThan(before);

  // another source address: a budget of its own, untouched by 127.0.0.1's requests
  const other = await get("/.well-known/ucp", "127.0.0.2");
  expect(remaining(other)).toBeGreaterThan(remaining(spoofed));
});
