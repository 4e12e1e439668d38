import "server-only";

import { listCatalogChanges } from "@/lib/catalog/changes/list-catalog-changes";
import { getProduct } from "@/lib/catalog/get-product";
import { lookupCatalog } from "@/lib/catalog/search/lookup-catalog";
import { searchCatalog } from "@/lib/catalog/search/search-catalog";
import type { AnyOperation } from "@/lib/core/operation";

import type { McpSurface } from "../handle-mcp-request";

// Tools of the global catalog MCP (`POST /mcp`, seed §4).
export const GLOBAL_TOOLS: readonly AnyOperation[] = [
  getProduct,
  searchCatalog,
  lookupCatalog,
  listCatalogChanges,
];

export const GLOBAL_MCP: McpSurface = {
  name: "agent-commerce-service/catalog",
  instructions:
    "Cross-store catalog (UCP 2026-04-08). Send meta['ucp-agent'].profile on every call; arguments sit under the `catalog` namespace. Buy through the store named in metadata.svc_seller.endpoint.",
  tools: GLOBAL_TOOLS,
};
