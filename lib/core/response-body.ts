// The body of a Response we built from text or bytes we held, for the code that reads it back on the way out (the
// store's response signature, the platform key's call log, the HTTP server writing it): those readers take the
// bytes we gave, not a copy of them through the Response's web stream. A stored REST answer used to be read
// through its stream three times (signed, logged, written) and passed on through two more Responses; in a profile
// of the checkout bench that stream work was about half a millisecond a flow.
//
// The registry lives on globalThis: the HTTP server's direct routes (scripts/lib/direct-routes.ts) read the bodies
// of Responses built by the route handlers of Next's bundle, which has its own copy of this module.

const REGISTRY = Symbol.for("agent-commerce.response-bodies");

type Body = string | Uint8Array<ArrayBuffer>;
const known: WeakMap<Response, Body> = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??= new WeakMap<
  Response,
  Body
>()) as WeakMap<Response, Body>;

/** A Response whose body is `body` (whose later readers take `body` itself). */
export const responseOf = (body: Body, init: ResponseInit): Response => {
  const response = new Response(body, init);
  known.set(response, body);
  return response;
};

/** `response` with other headers: the same status and body (the body unread when it is known). */
export const withHeadersOf = (response: Response, headers: Headers): Response => {
  const init = { status: response.status, statusText: response.statusText, headers };
  const body = known.get(response);
  return body === undefined ? new Response(response.body, init) : responseOf(body, init);
};

const bytesOf = (body: Body): Uint8Array<ArrayBuffer> =>
  typeof body === "string" ? new TextEncoder().encode(body) : body;

/** The body's bytes; a body not known is read from the response's stream (which is then used). */
export const readBody = async (response: Response): Promise<Uint8Array<ArrayBuffer>> => {
  const body = known.get(response);
  return body === undefined ? new Uint8Array(await response.arrayBuffer()) : bytesOf(body);
};

/** The body as text, leaving the response readable (a body not known is read from a clone). */
export const peekBodyText = async (response: Response): Promise<string> => {
  const body = known.get(response);
  if (body === undefined) return response.clone().text();
  return typeof body === "string" ? body : new TextDecoder().decode(body);
};
