import { AppError } from "@/lib/core/errors";

import { badStringReason } from "./json-guard";

// The request target (path and query) decoded safely, before any router or handler reads it: invalid
// percent-encoding (`/orders/%FF`) made Next's router answer a text/plain 500, and a NUL (`%00`) in a path id
// reached PostgreSQL, which refuses it with an error. Both are the client's mistake: 400 invalid_request.

// C0 controls and DEL never belong in an id or a query value.
const CONTROL = /[\u0000-\u001f\u007f]/;

const decodePart = (raw: string, where: string, plusIsSpace: boolean): string => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, " ") : raw);
  } catch {
    throw new AppError("invalid_request", `${where} has invalid percent-encoding (not UTF-8)`, {
      path: where,
    });
  }
  const reason = CONTROL.test(decoded) ? "contains a control character" : badStringReason(decoded);
  if (reason) throw new AppError("invalid_request", `${where} ${reason}`, { path: where });
  return decoded;
};

/**
 * Checks a raw request target (`/s/x/orders/%FF?cursor=…`): every path segment and query name and value must
 * percent-decode to UTF-8 text without control characters.
 * @throws AppError invalid_request, with `path` naming the part (`path` or `query:<name>`)
 */
export const assertCleanTarget = (target: string): void => {
  const queryAt = target.indexOf("?");
  const pathPart = queryAt === -1 ? target : target.slice(0, queryAt);
  const query = queryAt === -1 ? "" : target.slice(queryAt + 1);
  for (const segment of pathPart.split("/")) decodePart(segment, "path", false);
  if (!query) return;
  for (const pair of query.split("&")) {
    const eq = pair.indexOf("=");
    const name = decodePart(eq === -1 ? pair : pair.slice(0, eq), "query", true);
    if (eq !== -1) decodePart(pair.slice(eq + 1), `query:${name}`, true);
  }
};

/** The target of a web Request (path and query, still percent-encoded). */
export const targetOf = (request: Request): string => {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
};
