import { cancelCart } from "@/lib/carts/cancel-cart";
import { methodNotAllowed, ucpRoute } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// UCP cart REST: POST /carts/{id}/cancel with no body.
export const POST = ucpRoute(cancelCart, { readsBody: false });
export const GET = methodNotAllowed(["POST"]);
