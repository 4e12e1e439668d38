import "server-only";

import { allowsPrivateOutbound } from "@/lib/config/env";

// Who may reach private addresses (DECISIONS.md B10): the deployment decides first — never in production unless
// the operator set OUTBOUND_ALLOW_PRIVATE=1 — and then the store: a live store only ever reaches public https
// hosts; a test-mode store and the global surfaces (no store) may reach local agents where the deployment allows.

/** May an outbound fetch on behalf of `store` (null: a global surface) reach private addresses and plain http? */
export const outboundAllowsPrivate = (store: { mode: string } | null): boolean =>
  allowsPrivateOutbound() && (store === null || store.mode === "test");
