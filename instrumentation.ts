// Next's server start-up hook (runs once per server process, never during `next build`): starts the order-webhook
// delivery worker (lib/webhooks/worker.ts) in the Node.js runtime unless WEBHOOK_WORKER=off. It shares the app's
// database handle, which matters for the embedded PGlite (one process, one handle).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getEnv } = await import("@/lib/config/env");
  if (getEnv().WEBHOOK_WORKER === "off") return;
  const { startWebhookWorker } = await import("@/lib/webhooks/worker");
  startWebhookWorker();
  console.log("webhook worker started (order events → signed deliveries)");
}
