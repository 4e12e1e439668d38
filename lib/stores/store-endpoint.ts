import type { Store } from "@/lib/generated/prisma/client";

/**
 * A store's REST base URL `{base_url}/s/<slug>` (seed §2): the profile's REST endpoint and the products'
 * `metadata.svc_seller.endpoint` must be the same string, so both come from here.
 */
export const storeEndpoint = (store: Pick<Store, "slug">, baseUrl: string): string =>
  `${baseUrl}/s/${store.slug}`;
