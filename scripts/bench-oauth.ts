// `npm run bench:oauth`: prints what buyer identity costs per request, on an in-memory PGlite (default) or on a
// migrated loopback PostgreSQL named by DATABASE_URL:
// bearer verification on every buyer-bound request (JWT + family/consent lookup), the code exchange, and a refresh.
// Figures only — no assertions (STYLE.md: speed is measured by benchmarks that print figures).
import { randomBytes } from "node:crypto";

import { signInBuyer } from "@/lib/buyers/sign-in-buyer";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import { decideAuthorization } from "@/lib/oauth/decide-authorization";
import { exchangeToken } from "@/lib/oauth/exchange-token";
import { startAuthorization } from "@/lib/oauth/start-authorization";
import { calculatePKCE } from "@/scripts/lib/bench-pkce";

import { closeTestDatabase, prepareTestDatabase } from "../e2e/support/test-db";

const BASE = "http://127.0.0.1:3000";
const CLIENT = "https://bench-agent.example/client.json";
const REDIRECT = "https://bench-agent.example/cb";
const fetchDocument = async (url: string) => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ client_id: CLIENT, client_name: "Bench", redirect_uris: [REDIRECT] }),
  url,
});

const stats = (label: string, samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  console.log(
    `${label.padEnd(40)} n=${String(samples.length).padEnd(5)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms`,
  );
};

const time = async (fn: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

const link = async (buyerId: string) => {
  const { verifier, challenge } = calculatePKCE();
  const params = new URLSearchParams({
    response_type: "code",
    client_id: CLIENT,
    redirect_uri: REDIRECT,
    scope: "purchase:complete offline_access",
    state: randomBytes(8).toString("hex"),
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const started = await startAuthorization(params, { baseUrl: BASE, testMode: false, fetchDocument });
  if (started.kind !== "redirect") throw new Error(started.description);
  const requestId = new URL(started.location).searchParams.get("request")!;
  const { location } = await decideAuthorization({ requestId, buyerId, approve: true, baseUrl: BASE });
  const code = new URL(location).searchParams.get("code")!;
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: CLIENT,
    redirect_uri: REDIRECT,
  });
  return { form };
};

await prepareTestDatabase();
try {
  const buyer = await signInBuyer(`0x${randomBytes(32).toString("hex")}`);
  // warm-up: key creation, first queries
  const warm = await link(buyer.id);
  const tokens = await exchangeToken(warm.form, { authorization: null, baseUrl: BASE });

  const authorizeAndConsent: number[] = [];
  const exchange: number[] = [];
  for (let i = 0; i < 100; i++) {
    let form: URLSearchParams | undefined;
    authorizeAndConsent.push(await time(async () => ({ form } = await link(buyer.id))));
    exchange.push(await time(() => exchangeToken(form!, { authorization: null, baseUrl: BASE })));
  }
  const refresh: number[] = [];
  let refreshToken = tokens.refresh_token!;
  for (let i = 0; i < 100; i++) {
    refresh.push(
      await time(async () => {
        const form = new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshToken,
          client_id: CLIENT,
        });
        refreshToken = (await exchangeToken(form, { authorization: null, baseUrl: BASE })).refresh_token!;
      }),
    );
  }
  const verify: number[] = [];
  const authorization = `Bearer ${tokens.access_token}`;
  for (let i = 0; i < 1000; i++)
    verify.push(await time(() => resolvePrincipal({ apiKey: null, authorization })));

  const where = process.env.DATABASE_URL ? "PostgreSQL" : "in-memory PGlite";
  console.log(`Buyer identity on ${where} (one process, sequential):`);
  stats("authorize + consent (cached CIMD)", authorizeAndConsent);
  stats("token: authorization_code", exchange);
  stats("token: refresh_token (rotation)", refresh);
  stats("bearer verification per request", verify);
} finally {
  await closeTestDatabase();
}
