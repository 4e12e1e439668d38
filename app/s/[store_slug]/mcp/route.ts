import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";
import { storeMcp } from "@/lib/mcp/tools/store";

export const dynamic = "force-dynamic";

const handler = async (request: Request, context: { params: Promise<{ store_slug: string }> }) =>
  handleMcpRequest(request, storeMcp((await context.params).store_slug));

export { handler as DELETE, handler as GET, handler as PATCH, handler as POST, handler as PUT };
