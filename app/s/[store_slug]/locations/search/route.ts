import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { searchLocations } from "@/lib/locations/search-locations";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: ucpRoute(searchLocations) });
