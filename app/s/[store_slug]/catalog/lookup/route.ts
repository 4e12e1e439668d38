import { lookupCatalog } from "@/lib/catalog/search/lookup-catalog";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: ucpRoute(lookupCatalog) });
