// Payment rails (seed §1, DECISIONS.md B2). The profile registry keys (`sh.svc.*`) appear only in the profile
// builder; everything else selects a rail by its inner handler id (`svc.card` / `svc.crypto`).

export const RAIL_HANDLER_IDS = { card: "svc.card", crypto: "svc.crypto" } as const;
export const RAIL_REGISTRY_KEYS = { card: "sh.svc.card", crypto: "sh.svc.crypto" } as const;

export type Rail = keyof typeof RAIL_HANDLER_IDS;
export type HandlerId = (typeof RAIL_HANDLER_IDS)[Rail];

/** Handler spec version: the rails are ours, versioned with the protocol date they were written against. */
export const RAIL_VERSION = "2026-04-08";
