import { storeNotFoundRoute } from "@/lib/http/not-found-route";

export const dynamic = "force-dynamic";

export {
  storeNotFoundRoute as DELETE,
  storeNotFoundRoute as GET,
  storeNotFoundRoute as PATCH,
  storeNotFoundRoute as POST,
  storeNotFoundRoute as PUT,
};
