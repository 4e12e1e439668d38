import { getProduct } from "@/lib/catalog/get-product";
import { methodNotAllowed, ucpRoute } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const POST = ucpRoute(getProduct);
export const GET = methodNotAllowed(["POST"]);
