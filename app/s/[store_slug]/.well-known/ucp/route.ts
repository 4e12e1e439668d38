import { discoveryRoute } from "@/lib/http/discovery-route";
import { withMethods } from "@/lib/http/ucp-route";
import { getStoreProfile } from "@/lib/stores/store-profile";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: discoveryRoute((params, baseUrl) => getStoreProfile(String(params.store_slug), baseUrl)),
});
