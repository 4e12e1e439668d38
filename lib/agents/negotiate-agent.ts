import "server-only";

import type { Store } from "@/lib/generated/prisma/client";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";
import { negotiateVersion } from "@/lib/ucp/version";

import { getAgentProfile } from "./agent-profile";

/** DECISIONS.md B10 (lib/outbound/policy.ts): never in production unless the operator allows it; live stores never. */
export const allowsPrivateFor = (store: Pick<Store, "mode"> | null): boolean => outboundAllowsPrivate(store);

/**
 * UCP version negotiation (CONTRACT.md §4): the platform's `ucp.version`, read from its profile, must be ours or
 * one we list. The UCP-Agent `version` directive was already checked when the header was parsed (a fast refusal
 * that needs no fetch).
 * @throws AppError invalid_profile_url, profile_unreachable, profile_malformed, version_unsupported
 */
export const negotiateWithAgent = async (
  profileUrl: string,
  store: Pick<Store, "mode"> | null,
): Promise<string> => {
  const profile = await getAgentProfile(profileUrl, { allowPrivate: allowsPrivateFor(store) });
  return negotiateVersion(profile.ucp.version);
};
