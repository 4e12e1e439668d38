import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";
import { ACCOUNT_MCP } from "@/lib/mcp/tools/account";

export const dynamic = "force-dynamic";

const handler = (request: Request) => handleMcpRequest(request, ACCOUNT_MCP);

export { handler as DELETE, handler as GET, handler as PATCH, handler as POST, handler as PUT };
