import { routeMethods } from "@/lib/http/prelude";

// Liveness: the process is up and serving. No database call, no envelope, never cached.
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("discovery", {
  GET: async () => Response.json({ status: "ok" }, { headers: { "cache-control": "no-store" } }),
});
