import { NextResponse, type NextRequest } from "next/server";

import { pageCsp, pageKindOf } from "@/lib/http/page-csp";
import { checkSameOrigin } from "@/lib/http/same-origin";

// Security headers of the HTML pages (Next 16 Proxy, Node.js runtime): a fresh CSP nonce per request. Next reads the
// nonce from the request's Content-Security-Policy header and puts it on its own scripts; the response carries the
// same policy. API, MCP and OAuth endpoints are not matched: they answer JSON and never run page scripts. The pages'
// forms (server actions) are refused here when another site sends them (lib/http/same-origin.ts).
export function proxy(request: NextRequest) {
  const origin = checkSameOrigin(request.method, request.headers);
  if (!origin.ok) {
    return new NextResponse(
      `This form was sent from another site (${origin.origin.slice(0, 100)}), so nothing was done. Open the page on ${origin.host ?? "this site"} and send it from there.\n`,
      {
        status: 403,
        headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
      },
    );
  }
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
    "/oauth/consent/limit",
    "/oauth/error",
    "/account/agents",
    "/account/orders",
    "/account/spend-caps",
    "/account/pay/:token",
    "/admin",
    "/admin/:path*",
    "/developers",
    "/s/:store_slug/cart/:token",
    "/s/:store_slug/pay/:token",
  ],
};
