import { notFoundRoute } from "@/lib/http/not-found-route";
import { routeMethods } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

const all = {
  GET: notFoundRoute,
  POST: notFoundRoute,
  PUT: notFoundRoute,
  PATCH: notFoundRoute,
  DELETE: notFoundRoute,
};
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("ucp", all);
