import { conformanceDiscovery } from "@/lib/conformance/routes";
import { withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// The conformance store's base URL answers the suite's discovery with the 2026-01-11 leaf profile
// (docs/conformance.md); a route_not_found outside conformance mode.
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ GET: conformanceDiscovery });
