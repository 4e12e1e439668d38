import "server-only";

import { withNegotiatedCapabilities } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import type { OperationContext, OperationResult } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";
import { STORE_CAPABILITIES } from "@/lib/stores/store-profile";
import { APEX_CAPABILITIES } from "@/lib/ucp/apex-profile";
import type { CapabilityName } from "@/lib/ucp/capabilities";
import { intersectCapabilities } from "@/lib/ucp/negotiate";
import { negotiateVersion, UCP_VERSION, type Transport } from "@/lib/ucp/version";
import { CAPABILITIES_AT, isOlderVersion } from "@/lib/ucp/versions";

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
  transport: Transport,
): Promise<string> => {
  const profile = await getAgentProfile(profileUrl, { allowPrivate: allowsPrivateFor(store) });
  return negotiateVersion(profile.ucp.version, transport);
};

/**
 * The capabilities the business side offers at `version`: a store's profile, or the apex profile on global
 * surfaces; at an older version only those that version defines (2026-04-08 overview.md:1974-1977: a response at
 * an older version includes only capabilities compatible with it; docs/ucp-versions.md §2).
 */
const businessCapabilities = (
  store: Pick<Store, "mode"> | null,
  version: string,
): readonly CapabilityName[] => {
  const ours: readonly CapabilityName[] = store
    ? STORE_CAPABILITIES
    : [...APEX_CAPABILITIES, "dev.ucp.common.identity_linking"];
  return isOlderVersion(version) ? ours.filter((name) => CAPABILITIES_AT[version].includes(name)) : ours;
};

/**
 * The capabilities active for this request (UCP overview.md "Intersection Algorithm"): ours ∩ the platform
 * profile's, orphaned extensions pruned. Null when there is nothing to negotiate: no platform profile named, or an
 * anonymous caller (whose profile is never fetched).
 *
 * `root` is the capability the operation needs. At an older version a profile that does not name `root` at all
 * gets our whole offer at that version instead of a refusal: 2026-01-11 and 2026-01-23 define no error for a call
 * outside the intersection (`capabilities_incompatible` exists from 2026-04-08), and the profiles their SDKs and
 * the official suite publish list only the capability they configure (`order`, for its webhook URL). A profile
 * that names `root` is intersected as at 2026-04-08, so its extensions narrow what is active (docs/decisions.md
 * "The conformance store" 4).
 * @throws AppError the profile fetch codes of getAgentProfile
 */
export const activeCapabilities = async (
  ctx: Pick<OperationContext, "agentProfile" | "store" | "principal" | "ucpVersion">,
  root?: CapabilityName,
): Promise<Set<CapabilityName> | null> => {
  // an anonymous caller never makes us fetch the URL it names (lib/http/resolve-caller.ts): it gets our offer
  if (!ctx.agentProfile || ctx.principal.kind === "anonymous") return null;
  const profile = await getAgentProfile(ctx.agentProfile, { allowPrivate: allowsPrivateFor(ctx.store) });
  const ours = businessCapabilities(ctx.store, ctx.ucpVersion);
  const declared = profile.ucp.capabilities;
  if (root && isOlderVersion(ctx.ucpVersion) && (declared === undefined || !Object.hasOwn(declared, root))) {
    return new Set(ours);
  }
  return intersectCapabilities(ours, declared, ctx.ucpVersion);
};

/**
 * Wraps an operation's `run`: refuses with capabilities_incompatible when `root` is not in the negotiated
 * intersection (before anything is read or written), and makes every response envelope built inside list only
 * negotiated capabilities (overview.md "Response Capability Selection").
 */
export const requireCapability =
  <I>(root: CapabilityName, run: (ctx: OperationContext, input: I) => Promise<OperationResult>) =>
  async (ctx: OperationContext, input: I): Promise<OperationResult> => {
    const active = await activeCapabilities(ctx, root);
    if (!active) return run(ctx, input);
    if (isOlderVersion(ctx.ucpVersion) && !CAPABILITIES_AT[ctx.ucpVersion].includes(root)) {
      throw new AppError(
        "capabilities_incompatible",
        `This operation needs ${root}, which UCP ${ctx.ucpVersion} does not define (it exists from UCP ` +
          `${UCP_VERSION}): declare ${UCP_VERSION} in your platform profile to use it`,
      );
    }
    if (!active.has(root)) {
      throw new AppError(
        "capabilities_incompatible",
        `This operation needs ${root} (version ${ctx.ucpVersion}), which your platform profile does not declare ` +
          `in ucp.capabilities: declare it to use this service`,
      );
    }
    return withNegotiatedCapabilities(active, () => run(ctx, input));
  };
