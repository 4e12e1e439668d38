import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";
import { GLOBAL_MCP } from "@/lib/mcp/tools/global";

export const dynamic = "force-dynamic";

const handler = (request: Request) => handleMcpRequest(request, GLOBAL_MCP);

export { handler as DELETE, handler as GET, handler as PATCH, handler as POST, handler as PUT };
