import { routeMethods } from "@/lib/http/prelude";
import { checkReadiness } from "@/lib/ops/readiness";

// Readiness (lib/ops/readiness.ts): 200 when this instance can serve, 503 with the failing check otherwise.
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("discovery", {
  GET: async () => {
    const readiness = await checkReadiness();
    return Response.json(
      { status: readiness.ready ? "ready" : "not_ready", checks: readiness.checks },
      { status: readiness.ready ? 200 : 503, headers: { "cache-control": "no-store" } },
    );
  },
});
