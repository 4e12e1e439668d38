// The body of a Request or Response built from text or bytes we already held, kept beside it for the code that
// reads it back: those readers take the bytes themselves, not a copy of them through the message's web stream.
// - A stored REST answer used to be read through its stream three times on the way out (the store's response
//   signature, the platform key's call log, the HTTP server writing it) and passed on through two more Responses.
// - A shopping call's JSON body, read by the HTTP server from the socket before the handler runs (it says its
//   length and it is small), used to reach the body parser through a web stream adapted from Node's.
// In a profile of the checkout bench that stream work was about half a millisecond a flow.
//
// The registry lives on globalThis: the HTTP server's direct routes (scripts/lib/direct-routes.ts) build the
// Requests and read the Responses of the route handlers in Next's bundle, which has its own copy of this module.

const REGISTRY = Symbol.for("agent-commerce.known-bodies");

type Body = string | Uint8Array<ArrayBuffer>;
type Message = Request | Response;
const known: WeakMap<Message, Body> = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??= new WeakMap<
  Message,
  Body
>()) as WeakMap<Message, Body>;

/** A Response whose body is `body` (whose later readers take `body` itself). */
export const responseOf = (body: Body, init: ResponseInit): Response => {
  const response = new Response(body, init);
  known.set(response, body);
  return response;
};

/** A Request whose body is `body` (whose body parser takes `body` itself). */
export const requestOf = (url: string, init: RequestInit, body: Uint8Array<ArrayBuffer>): Request => {
  const request = new Request(url, { ...init, body });
  known.set(request, body);
  return request;
};

/** `response` with other headers: the same status and body (the body unread when it is known). */
export const withHeadersOf = (response: Response, headers: Headers): Response => {
  const init = { status: response.status, statusText: response.statusText, headers };
  const body = known.get(response);
  return body === undefined ? new Response(response.body, init) : responseOf(body, init);
};

/**
 * `response` with `entries` set on its headers: in place when they are mutable (a Response we built; each new
 * Response costs a body stream), else on a copy (the headers of Response.redirect, Response.error and fetch's
 * answers are immutable).
 */
export const withHeadersSet = (
  response: Response,
  entries: Iterable<readonly [string, string]>,
): Response => {
  const list = [...entries];
  try {
    for (const [name, value] of list) response.headers.set(name, value);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (const [name, value] of list) headers.set(name, value);
    return withHeadersOf(response, headers);
  }
};

const bytesOf = (body: Body): Uint8Array<ArrayBuffer> =>
  typeof body === "string" ? new TextEncoder().encode(body) : body;

/** The known body's bytes, or undefined when the message was not built from bytes we held. */
export const knownBytes = (message: Message): Uint8Array<ArrayBuffer> | undefined => {
  const body = known.get(message);
  return body === undefined ? undefined : bytesOf(body);
};

/** The body's bytes; a body not known is read from the message's stream (which is then used). */
export const readBody = async (message: Message): Promise<Uint8Array<ArrayBuffer>> =>
  knownBytes(message) ?? new Uint8Array(await message.arrayBuffer());

/** The body as text, leaving the message readable (a body not known is read from a clone). */
export const peekBodyText = async (message: Message): Promise<string> => {
  const body = known.get(message);
  if (body === undefined) return message.clone().text();
  return typeof body === "string" ? body : new TextDecoder().decode(body);
};
