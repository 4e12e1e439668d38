import { parseDictionary, type Dictionary } from "structured-headers";

import { AppError } from "@/lib/core/errors";
import { negotiateVersion, UCP_VERSION } from "@/lib/ucp/version";

// The request-envelope rules shared by every shopping surface (seed §4 "Request-envelope rules", §7):
// Request-Id always required and echoed; UCP-Agent an RFC 8941 dictionary with a required `profile` URL.

export type RequestEnvelope = {
  requestId: string;
  /** The agent profile URL from UCP-Agent. */
  agentProfile: string;
  /** Negotiated UCP version (the platform's `version` directive if it sent one, else ours). */
  ucpVersion: string;
};

const MAX_REQUEST_ID = 200;
const MAX_IDEMPOTENCY_KEY = 255;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** The Request-Id to echo: whatever the client sent, if it is safe to put back in a header. */
export const echoableRequestId = (headers: Headers): string | null => {
  const value = headers.get("request-id")?.trim();
  return value && value.length <= MAX_REQUEST_ID && VISIBLE_ASCII.test(value) ? value : null;
};

/** @throws AppError missing_request_id, invalid_request */
export const readRequestId = (headers: Headers): string => {
  const raw = headers.get("request-id");
  if (raw === null || raw.trim() === "") {
    throw new AppError("missing_request_id", "Request-Id header is required (a unique id per request)");
  }
  if (!echoableRequestId(headers)) {
    throw new AppError("invalid_request", `Request-Id must be 1-${MAX_REQUEST_ID} visible ASCII characters`, {
      path: "header:Request-Id",
    });
  }
  return raw.trim();
};

const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);

/**
 * An agent profile URL must be absolute https (UCP §4). Plain http is accepted for loopback hosts only, so
 * agents under development on this machine work (DECISIONS.md B10 allows loopback in test mode).
 * @throws AppError invalid_profile_url
 */
export const assertProfileUrl = (value: string, where: string): string => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError("invalid_profile_url", `${where}: profile "${value}" is not an absolute URL`);
  }
  const isHttps = url.protocol === "https:";
  const isLocalHttp = url.protocol === "http:" && isLoopbackHost(url.hostname);
  if (!isHttps && !isLocalHttp) {
    throw new AppError("invalid_profile_url", `${where}: profile must be an https URL, got "${value}"`);
  }
  if (url.username || url.password) {
    throw new AppError("invalid_profile_url", `${where}: profile URL must not carry credentials`);
  }
  return url.toString();
};

const stringMember = (dict: Dictionary, key: string): string | undefined | null => {
  const member = dict.get(key);
  if (member === undefined) return undefined;
  const [value] = member;
  return typeof value === "string" ? value : null;
};

/**
 * Parses `UCP-Agent: profile="https://…"[, version="2026-04-08"]` (RFC 8941 dictionary).
 * The seed calls the version directive `ucp-version`; both spellings are read. It is informational unless it
 * names a version we do not serve.
 * @throws AppError missing_ucp_agent, invalid_ucp_agent, invalid_profile_url, version_unsupported
 */
export const readUcpAgent = (headers: Headers): { agentProfile: string; ucpVersion: string } => {
  const raw = headers.get("ucp-agent");
  if (raw === null || raw.trim() === "") {
    throw new AppError("missing_ucp_agent", 'UCP-Agent header is required: profile="<agent profile URL>"');
  }
  let dict: Dictionary;
  try {
    dict = parseDictionary(raw);
  } catch {
    throw new AppError(
      "invalid_ucp_agent",
      'UCP-Agent is not an RFC 8941 dictionary; expected profile="<agent profile URL>"',
    );
  }
  const profile = stringMember(dict, "profile");
  if (profile === undefined) throw new AppError("invalid_ucp_agent", "UCP-Agent has no profile directive");
  if (profile === null) {
    throw new AppError("invalid_ucp_agent", 'UCP-Agent profile must be a quoted string: profile="<url>"');
  }
  // undefined = absent, null = present but not a string: `??` would turn the latter into "absent"
  const version = dict.has("version") ? stringMember(dict, "version") : stringMember(dict, "ucp-version");
  if (version === null) {
    throw new AppError(
      "invalid_ucp_agent",
      'UCP-Agent version must be a quoted string: version="2026-04-08"',
    );
  }
  // the directive only refuses early (no fetch); the profile's ucp.version picks the version (04-08
  // overview.md:1905-1906), so until the profile is read the request is at ours
  negotiateVersion(version, "rest");
  return { agentProfile: assertProfileUrl(profile, "UCP-Agent"), ucpVersion: UCP_VERSION };
};

/** Checks the envelope headers in the order a client fixes them: Request-Id, then UCP-Agent. */
export const readRequestEnvelope = (headers: Headers): RequestEnvelope => {
  const requestId = readRequestId(headers);
  return { requestId, ...readUcpAgent(headers) };
};

/**
 * Validates an idempotency key from the REST header or MCP meta.
 * @throws AppError invalid_request
 */
export const assertIdempotencyKey = (value: string, where: string): string => {
  const key = value.trim();
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY || !VISIBLE_ASCII.test(key)) {
    throw new AppError(
      "invalid_request",
      `${where} must be 1-${MAX_IDEMPOTENCY_KEY} visible ASCII characters (a UUID is recommended)`,
      { path: where },
    );
  }
  return key;
};
