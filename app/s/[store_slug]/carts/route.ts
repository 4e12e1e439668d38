import { createCart } from "@/lib/carts/create-cart";
import { methodNotAllowed, ucpRoute } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const POST = ucpRoute(createCart);
export const GET = methodNotAllowed(["POST"]);
