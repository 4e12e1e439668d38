import { notFoundRoute } from "@/lib/http/not-found-route";

export const dynamic = "force-dynamic";

export {
  notFoundRoute as DELETE,
  notFoundRoute as GET,
  notFoundRoute as PATCH,
  notFoundRoute as POST,
  notFoundRoute as PUT,
};
