// The Content-Security-Policy of the HTML pages (proxy.ts sets it per request). Scripts run only with the request's
// nonce ('strict-dynamic': what a nonced script loads is trusted, which is how the official loader injects Stripe.js;
// hosts listed beside it serve browsers without CSP3). No page may be framed. The hosted payment page also allows
// Stripe's documented origins: js.stripe.com (Stripe.js and its frames), hooks.stripe.com (3-D Secure frames) and
// api.stripe.com, plus the Stripe API origin the operator configured (STRIPE_API_URL, e.g. a Stripe-compatible
// test server) so a Stripe.js pointed there can reach it. The consent page has no form-action: approving sends the
// browser to the agent's redirect_uri, which Chromium checks against form-action when the form posts without script.

export type PageKind = "consent" | "payment" | "page";

export const pageKindOf = (pathname: string): PageKind =>
  pathname.startsWith("/oauth/") ? "consent" : /^\/s\/[^/]+\/pay\/[^/]+$/.test(pathname) ? "payment" : "page";

const STRIPE = {
  script: ["https://js.stripe.com"],
  frame: ["https://js.stripe.com", "https://hooks.stripe.com"],
  connect: ["https://api.stripe.com", "https://js.stripe.com"],
  img: ["https://*.stripe.com"],
};

const originOf = (url: string | undefined): string | null => {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

export const pageCsp = ({
  kind,
  nonce,
  dev,
  stripeApiUrl,
}: {
  kind: PageKind;
  nonce: string;
  /** next dev: React's debugging needs eval (never in production). */
  dev: boolean;
  stripeApiUrl?: string;
}): string => {
  const pay = kind === "payment";
  const stripeApi = originOf(stripeApiUrl);
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    [
      "script-src",
      "'self'",
      `'nonce-${nonce}'`,
      "'strict-dynamic'",
      ...(dev ? ["'unsafe-eval'"] : []),
      ...(pay ? STRIPE.script : []),
    ],
    // React and Radix write style attributes; styles cannot run code, so inline styles are allowed
    ["style-src", "'self'", "'unsafe-inline'"],
    ["img-src", "'self'", "data:", "blob:", "https:"],
    ["font-src", "'self'", "data:"],
    [
      "connect-src",
      "'self'",
      ...(pay ? STRIPE.connect : []),
      ...(pay && stripeApi && !STRIPE.connect.includes(stripeApi) ? [stripeApi] : []),
    ],
    ["frame-src", ...(pay ? STRIPE.frame : ["'none'"])],
    ["object-src", "'none'"],
    ["base-uri", "'self'"],
    ...(kind === "consent" ? [] : [["form-action", "'self'"] as [string, string]]),
    ["frame-ancestors", "'none'"],
  ];
  return directives.map((d) => d.join(" ")).join("; ");
};
