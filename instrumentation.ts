// Next's server start-up hook (runs once per server process, never during `next build`): starts the order-webhook
// delivery worker (lib/webhooks/worker.ts) in the Node.js runtime unless WEBHOOK_WORKER=off, with periodic jobs:
// every 60 s the card payment reconciliation sweep and the settlement of refunds left pending
// (lib/orders/settle-refund.ts); every hour the rotation of store signing keys older than SIGNING_KEY_MAX_AGE_DAYS
// (lib/stores/rotate-signing-key.ts) and the pruning of the catalog change feed past its retention window
// (lib/catalog/changes/prune-catalog-changes.ts). It shares the app's database handle, which
// matters for the embedded PGlite (one process, one handle). Because this process serves HTTP, test-mode stores
// register their Stripe webhook endpoint on the sandbox PSP ({BASE_URL}/s/<slug>/stripe/webhook) before their
// first charge (lib/payments/card/sandbox-webhooks.ts).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { enableSandboxWebhooks } = await import("@/lib/payments/card/sandbox-webhooks");
  enableSandboxWebhooks();
  const { getEnv } = await import("@/lib/config/env");
  if (getEnv().WEBHOOK_WORKER === "off") return;
  const { startWebhookWorker } = await import("@/lib/webhooks/worker");
  const { reconcileCardPayments, RECONCILE_INTERVAL_MS } =
    await import("@/lib/checkout/completion/reconcile-payments");
  const { reconcileCryptoPayments } = await import("@/lib/checkout/completion/reconcile-crypto");
  const { settlePendingRefunds } = await import("@/lib/orders/settle-refund");
  const { releaseExpiredSpend } = await import("@/lib/mandates/spend-ledger");
  const { rotateDueSigningKeys, SIGNING_KEY_ROTATION_INTERVAL_MS } =
    await import("@/lib/stores/rotate-signing-key");
  const { pruneCatalogChanges, CHANGES_PRUNE_INTERVAL_MS } =
    await import("@/lib/catalog/changes/prune-catalog-changes");
  const { onShutdown } = await import("@/lib/config/shutdown");
  const { logger } = await import("@/lib/core/log");
  const stop = startWebhookWorker({
    periodic: [
      {
        name: "payment reconciliation",
        everyMs: RECONCILE_INTERVAL_MS,
        run: async () => {
          const done = [...(await reconcileCardPayments()), ...(await reconcileCryptoPayments())].filter(
            (r) => r.result !== "open" && r.result !== "not_found",
          );
          // after the crypto sweep finished what landed (and debited it): what is still held past its expiry
          // goes back to the buyer's allowance
          const released = await releaseExpiredSpend();
          if (released > 0)
            logger().info({ released }, `spend ledger: ${released} expired reservation(s) released`);
          for (const r of done) {
            logger().info(
              { store: r.store, checkout_id: r.checkoutId, result: r.result },
              `reconcile: ${r.store} ${r.checkoutId} ${r.paymentIntentId ?? "-"} → ${r.result}${r.orderId ? ` ${r.orderId}` : ""}${r.detail ? ` (${r.detail})` : ""}`,
            );
          }
        },
      },
      {
        name: "pending refund settlement",
        everyMs: RECONCILE_INTERVAL_MS,
        run: async () => {
          for (const r of await settlePendingRefunds()) {
            logger().info(
              { order_id: r.orderId, result: r.status },
              `refund: ${r.adjustmentId} (order ${r.orderId}) → ${r.status}${r.error ? ` (${r.error})` : ""}`,
            );
          }
        },
      },
      {
        name: "store signing key rotation",
        everyMs: SIGNING_KEY_ROTATION_INTERVAL_MS,
        run: async () => {
          const { rotated, dropped } = await rotateDueSigningKeys({
            maxAgeDays: getEnv().SIGNING_KEY_MAX_AGE_DAYS,
          });
          for (const r of rotated) {
            logger().info(
              { store: r.storeId, kid: r.kid, retired: r.retired },
              `signing key: store ${r.storeId} now signs with ${r.kid} (retired ${r.retired.join(", ")})`,
            );
          }
          if (dropped > 0) logger().info(`signing key: ${dropped} key(s) past the 7-day grace removed`);
        },
      },
      {
        name: "catalog change feed pruning",
        everyMs: CHANGES_PRUNE_INTERVAL_MS,
        run: async () => {
          const pruned = await pruneCatalogChanges();
          if (pruned > 0)
            logger().info({ pruned }, `catalog changes: ${pruned} past the retention window removed`);
        },
      },
    ],
  });
  // graceful shutdown waits for the delivery and the sweep under way; their claims then lapse cleanly
  onShutdown("webhook worker and sweeps", stop);
  logger().info(
    "webhook worker started (order events → signed deliveries; card reconciliation and pending refunds every 60 s)",
  );
}
