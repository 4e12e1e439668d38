import http from "node:http";
import https from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

import type { BridgeOptions } from "./http";
import { bridgeProtectedResourceMetadataUrl, loadOrCreateBridgeKey } from "./identity";

// The bridge mounted in this app ({base_url}/bridge): a client of the same service over HTTP, like any agent,
// with its key from a file (identity.ts). The key is read once per process.

// Kept-alive connections to the service: a purchase through the bridge makes four calls, usually to this same
// host, and one connection serves them all.
const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

// (Node's own buffers, never over a SharedArrayBuffer: typed as Response takes them)
const decoded = (body: Buffer, encoding: string | undefined): Uint8Array<ArrayBuffer> => {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case "":
    case "identity":
      return body as Uint8Array<ArrayBuffer>;
    case "gzip":
    case "x-gzip":
      return gunzipSync(body) as Uint8Array<ArrayBuffer>;
    case "deflate":
      return inflateSync(body) as Uint8Array<ArrayBuffer>;
    case "br":
      return brotliDecompressSync(body) as Uint8Array<ArrayBuffer>;
    default:
      throw new TypeError(`the service answered in an encoding the bridge cannot read: ${encoding}`);
  }
};

/**
 * The mounted bridge's calls to its service: one HTTP/1.1 request over `node:http` (or `node:https`) on a
 * kept-alive connection, the answer read whole and handed back as a `Response`. Fetch (undici, and Next's patch
 * of it in this process) cost about 2–3 ms of CPU a purchase through the bridge for its four small JSON calls,
 * sampled; with this client a purchase through the bridge cost 2–4 ms less in alternated runs of
 * `bench:checkout` (docs/performance.md, "MCP and the bridge"). It asks for the answer uncompressed: the service
 * is usually this same process, so gzip would cost it twice (compressing, then inflating) to save bytes on the
 * host's own loopback; an answer compressed anyway (a proxy on the way) is still read. Redirects are not
 * followed: the bridge calls BASE_URL, which names the service as it is served. A network failure or the call's
 * signal rejects, as fetch does, and the transport retries it with the same idempotency key (agent-kit retry.ts).
 */
export const mountedServiceFetch = (url: string, init: RequestInit): Promise<Response> =>
  new Promise<Response>((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== "https:" && target.protocol !== "http:") {
      reject(
        new TypeError(`the mounted bridge calls its service over http or https, not ${target.protocol}`),
      );
      return;
    }
    const secure = target.protocol === "https:";
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
      reject(new TypeError("the mounted bridge sends text or bytes"));
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    headers["accept-encoding"] = "identity";
    if (body !== undefined && body !== null) headers["content-length"] = String(Buffer.byteLength(body));
    const request = (secure ? https : http).request(
      target,
      {
        method: init.method ?? "GET",
        headers,
        agent: agents[secure ? "https:" : "http:"],
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("error", reject);
        answer.on("end", () => {
          try {
            const out = new Headers();
            const raw = answer.rawHeaders;
            for (let i = 0; i + 1 < raw.length; i += 2) {
              // the body is handed over decoded, as fetch does
              if (/^content-(?:encoding|length)$/i.test(raw[i]!)) continue;
              out.append(raw[i]!, raw[i + 1]!);
            }
            const status = answer.statusCode ?? 502;
            resolve(
              new Response(
                NULL_BODY_STATUSES.has(status)
                  ? null
                  : decoded(Buffer.concat(chunks), answer.headers["content-encoding"]),
                { status, statusText: answer.statusMessage ?? "", headers: out },
              ),
            );
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    request.on("error", reject);
    request.end(body ?? undefined);
  });

let key: ReturnType<typeof loadOrCreateBridgeKey> | undefined;

export const mountedBridgeOptions = async ({
  baseUrl,
  bridgeUrl,
  keyFile,
}: {
  baseUrl: string;
  bridgeUrl: string;
  keyFile: string;
}): Promise<BridgeOptions> => {
  key ??= loadOrCreateBridgeKey(keyFile).catch((error: unknown) => {
    key = undefined;
    throw error;
  });
  return {
    baseUrl,
    agentProfileUrl: `${bridgeUrl}/.well-known/ucp`,
    fetch: mountedServiceFetch,
    key: await key,
    challengeMetadataUrl: bridgeProtectedResourceMetadataUrl(bridgeUrl),
  };
};
