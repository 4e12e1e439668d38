// Liveness: the process is up and serving. No database call, no envelope, never cached.
export const dynamic = "force-dynamic";

export const GET = (): Response =>
  Response.json({ status: "ok" }, { headers: { "cache-control": "no-store" } });
