import "server-only";

import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";

import { errorResponse, jsonResponse } from "./render-rest";
import { echoableRequestId } from "./request-envelope";
import type { RouteContext } from "./ucp-route";

// Discovery documents are plain public GETs: no envelope headers needed (a profile must be fetchable by anyone),
// cacheable (UCP §3: `public, max-age>=60`, never private/no-store), and stable.

export const PROFILE_CACHE_CONTROL = "public, max-age=300";

export const discoveryRoute =
  (
    build: (
      params: Record<string, string | string[] | undefined>,
      baseUrl: string,
    ) => Promise<unknown> | unknown,
  ) =>
  async (request: Request, context: RouteContext): Promise<Response> => {
    const requestId = echoableRequestId(request.headers);
    try {
      const body = await build(await context.params, getBaseUrl());
      return jsonResponse(200, JSON.stringify(body), requestId, { "cache-control": PROFILE_CACHE_CONTROL });
    } catch (thrown) {
      return errorResponse(toAppError(thrown), requestId);
    }
  };
