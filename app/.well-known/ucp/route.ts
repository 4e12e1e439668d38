import { discoveryRoute } from "@/lib/http/discovery-route";
import { buildApexProfile } from "@/lib/ucp/apex-profile";

export const dynamic = "force-dynamic";

export const GET = discoveryRoute((_params, baseUrl) => buildApexProfile(baseUrl));
