import { getCart } from "@/lib/carts/get-cart";
import { updateCart } from "@/lib/carts/update-cart";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: ucpRoute(getCart, { readsBody: false }),
  PUT: ucpRoute(updateCart),
});
