import "server-only";

import { AppError, toAppError } from "@/lib/core/errors";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";

import { errorResponse } from "./render-rest";
import { echoableRequestId } from "./request-envelope";
import type { RouteContext } from "./ucp-route";

// Catch-all handlers: an unknown path answers 404 with the UCP error envelope instead of an HTML page, and under
// /s/<slug>/ an unknown store is reported before an unknown path.

const routeNotFound = (request: Request) =>
  new AppError("route_not_found", `No route ${request.method} ${new URL(request.url).pathname}`);

export const notFoundRoute = async (request: Request): Promise<Response> =>
  errorResponse(routeNotFound(request), echoableRequestId(request.headers));

export const storeNotFoundRoute = async (request: Request, context: RouteContext): Promise<Response> => {
  const requestId = echoableRequestId(request.headers);
  try {
    await getStoreOrThrow(String((await context.params).store_slug));
    return errorResponse(routeNotFound(request), requestId);
  } catch (thrown) {
    return errorResponse(toAppError(thrown), requestId);
  }
};
