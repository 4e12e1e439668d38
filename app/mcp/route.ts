import { routeMethods } from "@/lib/http/prelude";
import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";
import { GLOBAL_MCP } from "@/lib/mcp/tools/global";

export const dynamic = "force-dynamic";

const handler = (request: Request) => handleMcpRequest(request, GLOBAL_MCP);

// GET and the others: 405 with a JSON-RPC error body (a stateless server has no GET stream, DECISIONS.md A)
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("mcp", { POST: handler });
