import { routeMethods, type RouteContext } from "@/lib/http/prelude";
import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";
import { storeMcp } from "@/lib/mcp/tools/store";

export const dynamic = "force-dynamic";

const handler = async (request: Request, context: RouteContext) =>
  handleMcpRequest(request, storeMcp(String((await context.params).store_slug)));

// GET and the others: 405 with a JSON-RPC error body (a stateless server has no GET stream, DECISIONS.md A)
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("mcp", { POST: handler });
