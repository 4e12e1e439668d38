import "server-only";

import { timingSafeEqual } from "node:crypto";

import { getBaseUrl } from "@/lib/config/env";
import { AppError, toAppError } from "@/lib/core/errors";
import { discoveryRoute } from "@/lib/http/discovery-route";
import type { Handler } from "@/lib/http/prelude";
import { errorResponse, jsonResponse } from "@/lib/http/render-rest";
import { echoableRequestId } from "@/lib/http/request-envelope";
import type { RouteContext } from "@/lib/http/ucp-route";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { orderToWire } from "@/lib/orders/to-wire";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { getStoreLeafProfile } from "@/lib/stores/store-profile";
import { UCP_VERSION } from "@/lib/ucp/version";

import { conformanceModeFor, type ConformanceMode } from "./mode";

// The conformance store's base URL, /s/<slug>/conformance (docs/conformance.md): what the official suite is
// given as its server URL. It reads `{base}/.well-known/ucp` (the store's 2026-01-11 leaf profile: the suite
// speaks 2026-01-11 only), pays at the endpoint that profile names, and calls `{base}/orders/{id}` and
// `{base}/testing/simulate-shipping/{id}` directly. Each is a thin adapter over what exists (the leaf profile, the
// order read route, the merchant's record of a shipment); outside conformance mode, and for every other store,
// these paths do not exist.

type Params = Record<string, string | string[] | undefined>;

const slugOf = (params: Params): string | undefined =>
  typeof params.store_slug === "string" ? params.store_slug : undefined;

const notHere = () => new AppError("route_not_found", "No such path: this is not a conformance store");

/** The mode of the store the path names, or route_not_found. */
const requireMode = (params: Params): ConformanceMode => {
  const mode = conformanceModeFor(slugOf(params));
  if (!mode) throw notHere();
  return mode;
};

/** The version the suite speaks: its agent profile and every model it parses are 2026-01-11. */
export const CONFORMANCE_UCP_VERSION = "2026-01-11";

/** `{base}/.well-known/ucp`: the store's 2026-01-11 leaf profile. */
export const conformanceDiscovery: Handler = discoveryRoute((params, baseUrl) => {
  requireMode(params);
  return getStoreLeafProfile(String(params.store_slug), CONFORMANCE_UCP_VERSION, baseUrl);
});

/** A store route's handler, answered under the base URL in conformance mode only. */
export const conformanceOnly =
  (handler: Handler): Handler =>
  async (request: Request, context: RouteContext): Promise<Response> => {
    const params = ((await context?.params) ?? {}) as Params;
    if (!conformanceModeFor(slugOf(params))) {
      return errorResponse(notHere(), echoableRequestId(request.headers));
    }
    return handler(request, context);
  };

const sameSecret = (sent: string | null, expected: string): boolean => {
  if (sent === null) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * `{base}/testing/simulate-shipping/{id}`: the merchant ships the whole order (recordFulfillmentEvent, as the
 * admin and the merchant API do), behind the `Simulation-Secret` the command was started with. The order's
 * `shipped` event then goes to the platform's webhook like any other.
 */
export const simulateShipping: Handler = async (request: Request, context: RouteContext) => {
  const requestId = echoableRequestId(request.headers);
  try {
    const params = ((await context?.params) ?? {}) as Params;
    const mode = requireMode(params);
    if (!sameSecret(request.headers.get("simulation-secret"), mode.simulationSecret)) {
      throw new AppError(
        "simulation_secret_invalid",
        request.headers.has("simulation-secret")
          ? "Simulation-Secret is not this conformance store's secret"
          : "Simulation-Secret header is required on the simulation paths",
      );
    }
    const orderId = String(params.id);
    const order = await recordFulfillmentEvent(mode.storeSlug, orderId, {
      type: "shipped",
      description: "Shipped by the conformance store's simulation",
    });
    const store = await getStoreOrThrow(mode.storeSlug);
    // the merchant's view of what it did (not a UCP answer, the suite reads only the status)
    const body = orderToWire(order, { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION });
    return jsonResponse(200, JSON.stringify(body), requestId);
  } catch (thrown) {
    return errorResponse(toAppError(thrown), requestId);
  }
};
