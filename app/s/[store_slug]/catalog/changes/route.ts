import { listCatalogChanges } from "@/lib/catalog/changes/list-catalog-changes";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: ucpRoute(listCatalogChanges) });
