import { getCart } from "@/lib/carts/get-cart";
import { updateCart } from "@/lib/carts/update-cart";
import { methodNotAllowed, ucpRoute } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const GET = ucpRoute(getCart, { readsBody: false });
export const PUT = ucpRoute(updateCart);
export const POST = methodNotAllowed(["GET", "PUT"]);
export const DELETE = methodNotAllowed(["GET", "PUT"]);
