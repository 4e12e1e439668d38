// Cross-site form posts to our pages (server actions) are refused before they reach Next.js. Next refuses them too,
// but with a 500; a browser that sends a form from another site gets a clear 403 instead, and nothing runs. The
// rule is Next's own (the Origin's host must equal the forwarded host, else the Host header), so a deployment
// behind a proxy behaves the same either way. A request without Origin is not a browser's cross-site request (every
// browser sends Origin on a cross-site POST) and passes, as in Next.

export type OriginVerdict = { ok: true } | { ok: false; origin: string; host: string | null };

export const checkSameOrigin = (method: string, headers: Headers): OriginVerdict => {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return { ok: true };
  const origin = headers.get("origin");
  if (origin === null) return { ok: true };
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host");
  let originHost: string;
  try {
    originHost = origin === "null" ? "null" : new URL(origin).host;
  } catch {
    originHost = "";
  }
  return host && originHost === host ? { ok: true } : { ok: false, origin, host };
};
