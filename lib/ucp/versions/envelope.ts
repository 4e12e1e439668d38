import type { OlderVersion } from "./index";

// The `ucp` envelope, messages and errors at 2026-01-11 and 2026-01-23 (docs/ucp-versions.md §3.1, §3.14).

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The `ucp` block of an answer at an older version: the negotiated version; capabilities as an array of
 * `{name, version}` at 01-11 (`ucp.json#/$defs/response_checkout`), a map at 01-23, each at that version; no
 * `status` (04-08 only). `payment_handlers` stays at 01-23 without `available_instruments` (not in 01-23
 * `payment_handler.json`); at 01-11 it does not exist there, the checkout translation moves it (§3.12).
 */
export const ucpDown = (version: OlderVersion, ucp: unknown): Json => {
  const source = isObject(ucp) ? ucp : {};
  const names = isObject(source.capabilities) ? Object.keys(source.capabilities) : [];
  if (version === "2026-01-11") {
    return { version, capabilities: names.map((name) => ({ name, version })) };
  }
  const handlers = isObject(source.payment_handlers)
    ? Object.fromEntries(
        Object.entries(source.payment_handlers).map(([key, entries]) => [
          key,
          Array.isArray(entries)
            ? entries.map((entry) => {
                if (!isObject(entry)) return entry;
                const { available_instruments: _dropped, ...rest } = entry;
                return { ...rest, version };
              })
            : entries,
        ]),
      )
    : undefined;
  return {
    version,
    capabilities: Object.fromEntries(names.map((name) => [name, [{ version }]])),
    ...(handlers ? { payment_handlers: handlers } : {}),
  };
};

/**
 * One message at an older version: `unrecoverable` (04-08 only) becomes `requires_buyer_input`, the nearest
 * meaning ("the platform cannot fix this through the API"; product call, lossy); a warning loses the 04-08
 * presentation fields (`presentation`, `image_url`, `url`).
 */
export const messageDown = (message: unknown): unknown => {
  if (!isObject(message)) return message;
  if (message.type === "error" && message.severity === "unrecoverable") {
    return { ...message, severity: "requires_buyer_input" };
  }
  if (message.type === "warning") {
    const { presentation: _p, image_url: _i, url: _u, ...rest } = message;
    return rest;
  }
  return message;
};

export const messagesDown = (messages: unknown): unknown =>
  Array.isArray(messages) ? messages.map(messageDown) : messages;

/**
 * HTTP statuses for business outcomes that return no resource (docs/ucp-versions.md §3.14, product call): the
 * older tags have no error envelope, their REST binding points at HTTP status codes (01-11
 * `checkout-rest.md:1297-1333`). Not found → 404, a state conflict → 409, any other refusal → 400.
 */
const STATUS_OF_OUTCOME: Record<string, number> = {
  not_found: 404,
  checkout_not_modifiable: 409,
};

/**
 * An error answer at an older version, REST: `{ucp:{version, capabilities}, status:"requires_escalation",
 * messages, continue_url?, code, content}` — the 01-11 example body (`overview.md:1097-1106`), plus our transport
 * fields `code`/`content` (DECISIONS.md B9) and the `ucp` block every answer carries. Protocol errors keep their
 * status; a 200 business outcome gets the status of STATUS_OF_OUTCOME, except capabilities_incompatible, which
 * stays 200 as at 04-08 (docs/ucp-versions.md §2).
 */
export const errorDown = (
  version: OlderVersion,
  body: Json,
  httpStatus: number,
): { status: number; body: Json } => {
  const messages = (messagesDown(body.messages) as Json[] | undefined) ?? [];
  const first = messages.find((m) => m.type === "error") ?? messages[0] ?? {};
  const code = typeof body.code === "string" ? body.code : String(first.code ?? "internal_error");
  const content = typeof body.content === "string" ? body.content : String(first.content ?? "");
  const status =
    httpStatus >= 400 || code === "capabilities_incompatible" ? httpStatus : (STATUS_OF_OUTCOME[code] ?? 400);
  const { ucp: _ucp, messages: _messages, code: _code, content: _content, ...rest } = body;
  return {
    status,
    body: {
      ucp: { version, capabilities: version === "2026-01-11" ? [] : {} },
      status: "requires_escalation",
      messages,
      ...rest,
      code,
      content,
    },
  };
};
