import { storeNotFoundRoute } from "@/lib/http/not-found-route";
import { routeMethods } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

const all = {
  GET: storeNotFoundRoute,
  POST: storeNotFoundRoute,
  PUT: storeNotFoundRoute,
  PATCH: storeNotFoundRoute,
  DELETE: storeNotFoundRoute,
};
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("ucp", all);
