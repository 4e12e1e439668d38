import { discoveryRoute } from "@/lib/http/discovery-route";
import { withMethods } from "@/lib/http/ucp-route";
import { getStoreLeafProfile } from "@/lib/stores/store-profile";

export const dynamic = "force-dynamic";

// The leaf profiles of `supported_versions` (docs/ucp-versions.md §1.2): one per older UCP version served.
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: discoveryRoute((params, baseUrl) =>
    getStoreLeafProfile(String(params.store_slug), String(params.version), baseUrl),
  ),
});
