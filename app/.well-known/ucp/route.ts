import { discoveryRoute } from "@/lib/http/discovery-route";
import { withMethods } from "@/lib/http/ucp-route";
import { publishedRateLimits } from "@/lib/rate-limit/policies";
import { buildApexProfile } from "@/lib/ucp/apex-profile";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: discoveryRoute((_params, baseUrl) => buildApexProfile(baseUrl, publishedRateLimits())),
});
