import { discoveryRoute } from "@/lib/http/discovery-route";
import { routeMethods } from "@/lib/http/prelude";
import { buildAuthorizationServerMetadata } from "@/lib/oauth/metadata";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";

export const dynamic = "force-dynamic";

// Compatibility path: some UCP clients look for the AS metadata at the store's base. The document is the
// origin's, byte for byte (one authorization server; issuer {base_url}); an unknown slug is store_not_found.
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("discovery", {
  GET: discoveryRoute(async (params, baseUrl) => {
    await getStoreOrThrow(String(params.store_slug), { forRead: true });
    return buildAuthorizationServerMetadata(baseUrl);
  }),
});
