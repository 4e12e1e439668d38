import { routeMethods } from "@/lib/http/prelude";
import { scrapeMetrics } from "@/lib/ops/metrics";

// Prometheus metrics (lib/ops/metrics.ts), like /healthz outside the UCP envelope and never cached. Where a token
// is required (production, a live store) the scraper sends METRICS_TOKEN as a bearer; otherwise 401.
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("discovery", {
  GET: async (request) => {
    const answer = await scrapeMetrics(request.headers.get("authorization"));
    if (answer.ok) {
      return new Response(answer.body, {
        headers: { "content-type": answer.contentType, "cache-control": "no-store" },
      });
    }
    const error =
      answer.reason === "token_not_configured"
        ? "metrics need a token here: set METRICS_TOKEN and send it as a bearer"
        : "send METRICS_TOKEN as Authorization: Bearer <token>";
    return Response.json(
      { error },
      {
        status: 401,
        headers: { "www-authenticate": 'Bearer realm="metrics"', "cache-control": "no-store" },
      },
    );
  },
});
