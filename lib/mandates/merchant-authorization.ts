import "server-only";

import canonicalize from "canonicalize";

import { getAgentProfile } from "@/lib/agents/agent-profile";
import { allowsPrivateFor } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { storeOf, type OperationContext } from "@/lib/core/operation";
import { signDetachedWithStoreKey } from "@/lib/stores/sign-detached";
import { responseCapabilities } from "@/lib/ucp/capabilities";
import { handlerDocsAt, isOlderVersion } from "@/lib/ucp/versions";
import { checkoutDown } from "@/lib/ucp/versions/checkout";

// UCP AP2 extension: when the platform negotiates `dev.ucp.shopping.ap2_mandate` (its profile lists
// the capability), checkout responses carry `ap2.merchant_authorization`: a detached ES256 JWS by the store's
// signing key (published in the store profile) over the JCS of the response body without `ap2`.

const AP2 = "dev.ucp.shopping.ap2_mandate";

type Body = Record<string, unknown> & { ucp: { capabilities?: Record<string, unknown> } };

export const withMerchantAuthorization = async <B extends Record<string, unknown>>(
  ctx: OperationContext,
  body: B,
): Promise<B> => {
  const store = storeOf(ctx);
  const profile = await getAgentProfile(ctx.agentProfile, { allowPrivate: allowsPrivateFor(store) }).catch(
    () => null,
  );
  if (!profile?.ucp.capabilities || !(AP2 in profile.ucp.capabilities)) return body;
  const { ap2: _ignored, ...rest } = body as unknown as Body;
  void _ignored;
  const signed: Body = {
    ...rest,
    ucp: { ...rest.ucp, capabilities: { ...rest.ucp.capabilities, ...responseCapabilities([AP2]) } },
  };
  // the platform verifies what it receives: at an older version that is the translated checkout the REST edge
  // sends (docs/ucp-versions.md §3.13), so the signature covers that, computed here by the same pure function
  const shown = isOlderVersion(ctx.ucpVersion)
    ? checkoutDown(ctx.ucpVersion, signed, handlerDocsAt(ctx.baseUrl))
    : signed;
  const payload = new TextEncoder().encode(canonicalize(shown) ?? "");
  const authorization = await signDetachedWithStoreKey(await getDb(), store.id, payload);
  return (authorization
    ? { ...signed, ap2: { merchant_authorization: authorization } }
    : signed) as unknown as B;
};
