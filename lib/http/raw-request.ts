import type { IncomingMessage, ServerResponse } from "node:http";

import { errorBody } from "@/lib/core/envelope";
import { toAppError } from "@/lib/core/errors";
import { CLIENT_ADDRESS_HEADER, clientAddressStamp } from "@/lib/rate-limit/client-address";

import { echoableRequestId } from "./request-envelope";
import { assertCleanTarget } from "./request-target";
import { NOSNIFF, REFERRER_POLICY } from "./security-headers";

// The prelude's rules for what the Node HTTP server (scripts/serve.ts) sees before Next routes anything: Next
// answers some requests itself (a 308 for a trailing slash, a text/plain 500 when a path does not
// percent-decode), and those answers must still echo the Request-Id and never be a 500 for the client's typo.

/** The client's Request-Id if it is safe to echo (the same rule as the route prelude). */
const requestIdOf = (req: IncomingMessage): string | null => {
  const raw = req.headers["request-id"];
  return typeof raw === "string" ? echoableRequestId(new Headers({ "request-id": raw })) : null;
};

/**
 * Passes the socket's peer address to the route handlers (they see a web Request, not the socket) in
 * CLIENT_ADDRESS_HEADER, after deleting any value the client sent under that name: the rate limits key anonymous
 * callers by it, and believe X-Forwarded-For only when this peer is a trusted proxy (lib/rate-limit/client-address.ts).
 */
export const stampClientAddress = (req: IncomingMessage): void => {
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i]?.toLowerCase() === CLIENT_ADDRESS_HEADER) raw.splice(i, 2);
  }
  delete req.headers[CLIENT_ADDRESS_HEADER];
  const peer = req.socket.remoteAddress;
  if (!peer) return;
  const stamp = clientAddressStamp(peer);
  req.headers[CLIENT_ADDRESS_HEADER] = stamp;
  raw.push(CLIENT_ADDRESS_HEADER, stamp);
};

/**
 * Sets the Request-Id echo, nosniff and the Referrer-Policy on every answer and refuses an unsafe request target (invalid percent-encoding, NUL)
 * with 400 invalid_request in the UCP envelope. Returns false when it answered the request itself.
 */
export const admitRawRequest = (req: IncomingMessage, res: ServerResponse): boolean => {
  stampClientAddress(req);
  const requestId = requestIdOf(req);
  if (requestId) res.setHeader("request-id", requestId);
  // every answer of the server, pages and static files and Next's own answers included (security-headers.ts)
  res.setHeader(...NOSNIFF);
  // a default: a page or route that sets its own Referrer-Policy later replaces it
  res.setHeader(...REFERRER_POLICY);
  try {
    assertCleanTarget(req.url ?? "/");
    return true;
  } catch (thrown) {
    const error = toAppError(thrown);
    const body = JSON.stringify(errorBody(error));
    // the body (if any) is never read: the connection cannot carry another request
    res.writeHead(error.spec.httpStatus, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      connection: "close",
    });
    res.end(body);
    return false;
  }
};

/**
 * The Request-Id header line for a raw error answer written to the socket (431, malformed request), read from
 * the bytes Node already parsed; empty when there is none to echo.
 */
export const rawRequestIdLine = (error: Error): string => {
  const raw: unknown = "rawPacket" in error ? error.rawPacket : undefined;
  const packet = Buffer.isBuffer(raw) ? raw.toString("latin1") : "";
  const match = /\r\nrequest-id:[ \t]*([\x21-\x7e]{1,200})[ \t]*\r\n/i.exec(packet);
  return match?.[1] ? `Request-Id: ${match[1]}\r\n` : "";
};
