import type { z } from "zod";

import type { MerchantCaller, MerchantPermission } from "@/lib/credentials/merchant-keys";
import type { Store } from "@/lib/generated/prisma/client";

// One route of the merchant REST API: `/merchant/v1/stores/{store_slug}` + `path`. A route is a descriptor over a
// domain operation (the same one the admin's server action calls); the handler (handler.ts) authenticates the
// merchant key, refuses another store's key as an unknown store, checks the permission, validates the input (path
// parameters, then the query of a GET or the JSON body) with `input`, and renders `run`'s body as JSON. Adding a
// route is a descriptor here and one line in routes.ts; the OpenAPI document lists it (scripts/lib/openapi.ts).

export type MerchantMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type MerchantContext = { store: Store; caller: MerchantCaller; baseUrl: string; now: Date };

export type MerchantRoute<S extends z.ZodType = z.ZodType> = {
  /** operationId in the OpenAPI document. */
  name: string;
  title: string;
  description: string;
  method: MerchantMethod;
  /** Under /merchant/v1/stores/{store_slug}, with `{param}` segments: `/orders/{id}/cancel`. */
  path: string;
  permission: MerchantPermission;
  /** Path parameters, query (GET) or body, merged: minor units, snake_case. */
  input: S;
  /** The largest JSON body accepted (default MAX_BODY_BYTES, 1 MB): a catalog file needs more. */
  maxBodyBytes?: number;
  /** 201 for a create. */
  status?: 200 | 201;
  run: (ctx: MerchantContext, input: z.output<S>) => Promise<unknown>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- variance: a registry holds routes of any input schema
export type AnyMerchantRoute = MerchantRoute<any>;

export const defineMerchantRoute = <S extends z.ZodType>(route: MerchantRoute<S>): MerchantRoute<S> => route;

export const MERCHANT_API_PREFIX = "/merchant/v1/stores";
