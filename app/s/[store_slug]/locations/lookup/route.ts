import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { lookupLocations } from "@/lib/locations/lookup-locations";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: ucpRoute(lookupLocations) });
