import { generateKeyPairSync, type JsonWebKey } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { buildExampleAgentProfile } from "@/lib/ucp/example-agent-profile";

import { withMandateKey } from "./card-completion";
import { agentProfile0111, agentProfile0123 } from "./older-agent-profiles";

// Test double: agents' profile hosts on 127.0.0.1 (the service fetches UCP-Agent profiles, CONTRACT.md §4). Each
// path is one behaviour; `hits` counts fetches so tests can see the cache work. The server is unref'd: it never
// keeps a test process alive.

export type ProfileServer = {
  url: (name: ProfileName) => string;
  hits: (name: ProfileName) => number;
  /** The private ES256 key whose public half the "signed" profile publishes in signing_keys. */
  agentKey: { kid: string; privateJwk: JsonWebKey; publicJwk: JsonWebKey };
  /**
   * Serves (or replaces) a profile at `/<name>/.well-known/ucp` publishing these keys (an agent rotating its keys) and, when given, exactly these capabilities.
   * Returns the profile URL; `hits(name)` counts its fetches.
   */
  publish: (
    name: `agent-${string}`,
    keys: JsonWebKey[],
    options?: { cacheControl?: string; ap2?: boolean; capabilities?: string[] },
  ) => string;
};

/** A fresh ES256 agent key pair under `kid`. */
export const makeAgentKey = (kid = "test-agent-es256") => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    kid,
    privateJwk: { ...privateKey.export({ format: "jwk" }), kid },
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" },
  };
};

export type ProfileName =
  | `agent-${string}`
  | "ok"
  | "signed"
  | "ap2"
  | "cached"
  | "newer"
  | "v2026-01-11"
  | "v2026-01-23"
  | "v2026-01-11-signed"
  | "v2026-01-23-signed"
  | "v2026-1-11"
  | "v2025-12-01"
  | "v2026-02-15"
  | "malformed"
  | "no-version"
  | "redirect"
  | "error"
  | "big"
  | "slow";

const json = (body: unknown, cacheControl = "public, max-age=300") => ({
  status: 200,
  headers: { "content-type": "application/json", "cache-control": cacheControl },
  body: JSON.stringify(body),
});

const start = async (): Promise<ProfileServer> => {
  const counts = new Map<string, number>();
  const agentKey = makeAgentKey();
  const published = new Map<
    string,
    { keys: JsonWebKey[]; cacheControl: string; ap2: boolean; capabilities?: string[] }
  >();
  let base = "";
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? "/").split("/")[1] ?? "";
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const routes: Record<string, () => { status: number; headers: Record<string, string>; body: string }> = {
      ok: () => json(buildExampleAgentProfile(base)),
      // completes card checkouts: declares the AP2 mandate capability the stores require, publishes its key
      signed: () => json(withMandateKey(buildExampleAgentProfile(base), agentKey.publicJwk)),
      // issue #5: negotiates the AP2 mandate extension (and publishes the mandate key)
      ap2: () => {
        const profile = buildExampleAgentProfile(base);
        const capabilities = {
          ...profile.ucp.capabilities,
          "dev.ucp.shopping.ap2_mandate": [{ version: profile.ucp.version }],
        };
        return json({
          ...profile,
          ucp: { ...profile.ucp, capabilities },
          signing_keys: [agentKey.publicJwk],
        });
      },
      cached: () => json(buildExampleAgentProfile(base), "max-age=5"),
      newer: () => json(buildExampleAgentProfile(base, "2099-01-01")),
      // agents speaking the older UCP versions, in their own profile shapes (docs/ucp-versions.md §1.3)
      "v2026-01-11": () => json(agentProfile0111(base)),
      "v2026-01-23": () => json(agentProfile0123(base)),
      // …that complete card checkouts: AP2 declared, the mandate key published
      "v2026-01-11-signed": () =>
        json(agentProfile0111(base, "2026-01-11", { mandateKey: agentKey.publicJwk })),
      "v2026-01-23-signed": () =>
        json(agentProfile0123(base, "2026-01-23", { mandateKey: agentKey.publicJwk })),
      // malformed (not YYYY-MM-DD), older than any we serve, between two we serve
      "v2026-1-11": () => json(agentProfile0111(base, "2026-1-11")),
      "v2025-12-01": () => json(agentProfile0123(base, "2025-12-01")),
      "v2026-02-15": () => json(agentProfile0123(base, "2026-02-15")),
      malformed: () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{not json" }),
      "no-version": () => json({ ucp: { services: {} } }),
      redirect: () => ({ status: 302, headers: { location: `${base}/ok/.well-known/ucp` }, body: "" }),
      error: () => ({ status: 500, headers: {}, body: "boom" }),
      big: () => json({ ...buildExampleAgentProfile(base), padding: "x".repeat(100_000) }),
    };
    if (name === "slow") return; // never answers: the client's timeout must end it
    const dynamic = published.get(name);
    if (dynamic) {
      const profile = buildExampleAgentProfile(base);
      const declared: Record<string, unknown> = dynamic.capabilities
        ? Object.fromEntries(dynamic.capabilities.map((c) => [c, [{ version: profile.ucp.version }]]))
        : profile.ucp.capabilities;
      const capabilities = dynamic.ap2
        ? { ...declared, "dev.ucp.shopping.ap2_mandate": [{ version: profile.ucp.version }] }
        : declared;
      const answer = json(
        { ...profile, ucp: { ...profile.ucp, capabilities }, signing_keys: dynamic.keys },
        dynamic.cacheControl,
      );
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    const route = routes[name];
    const answer = route ? route() : { status: 404, headers: {}, body: "" };
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (name) => `${base}/${name}/.well-known/ucp`,
    hits: (name) => counts.get(name) ?? 0,
    agentKey,
    publish: (name, keys, { cacheControl = "public, max-age=3600", ap2 = false, capabilities } = {}) => {
      published.set(name, { keys, cacheControl, ap2, ...(capabilities ? { capabilities } : {}) });
      return `${base}/${name}/.well-known/ucp`;
    },
  };
};

let shared: Promise<ProfileServer> | undefined;

/** The process-wide profile server (started on first use). */
export const profileServer = (): Promise<ProfileServer> => (shared ??= start());
