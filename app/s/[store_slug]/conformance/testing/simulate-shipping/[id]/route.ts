import { simulateShipping } from "@/lib/conformance/routes";
import { withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// The conformance store ships an order on the suite's request, behind its Simulation-Secret (docs/conformance.md).
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: simulateShipping });
