import { searchCatalog } from "@/lib/catalog/search/search-catalog";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: ucpRoute(searchCatalog) });
