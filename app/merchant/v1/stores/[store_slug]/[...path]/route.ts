import { routeMethods } from "@/lib/http/prelude";
import { merchantApiHandler } from "@/lib/merchant-api/handler";

export const dynamic = "force-dynamic";

// The merchant REST API (lib/merchant-api): one store's settings, rails, owed-back records, webhook and orders,
// with a merchant key of that store. The routes are the descriptors of lib/merchant-api/routes.ts.
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("page-api", {
  GET: merchantApiHandler,
  POST: merchantApiHandler,
  PUT: merchantApiHandler,
  PATCH: merchantApiHandler,
  DELETE: merchantApiHandler,
});
