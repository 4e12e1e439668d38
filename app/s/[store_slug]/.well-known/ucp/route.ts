import { discoveryRoute } from "@/lib/http/discovery-route";
import { getStoreProfile } from "@/lib/stores/store-profile";

export const dynamic = "force-dynamic";

export const GET = discoveryRoute((params, baseUrl) => getStoreProfile(String(params.store_slug), baseUrl));
