import { NextResponse, type NextRequest } from "next/server";

import { pageCsp, pageKindOf } from "@/lib/http/page-csp";

// Security headers of the HTML pages (Next 16 Proxy, Node.js runtime): a fresh CSP nonce per request. Next reads the
// nonce from the request's Content-Security-Policy header and puts it on its own scripts; the response carries the
// same policy. API, MCP and OAuth endpoints are not matched: they answer JSON and never run page scripts.
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const csp = pageCsp({
    kind: pageKindOf(request.nextUrl.pathname),
    nonce,
    dev: process.env.NODE_ENV === "development",
    stripeApiUrl: process.env.STRIPE_API_URL,
  });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  response.headers.set("X-Frame-Options", "DENY");
  response.headers.set("X-Content-Type-Options", "nosniff");
  return response;
}

export const config = {
  matcher: [
    "/",
    "/oauth/consent",
    "/account/agents",
    "/account/orders",
    "/account/pay/:token",
    "/admin",
    "/admin/:path*",
    "/developers",
    "/s/:store_slug/cart/:token",
    "/s/:store_slug/pay/:token",
  ],
};
