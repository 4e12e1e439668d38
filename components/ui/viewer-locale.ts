import "server-only";

import { headers } from "next/headers";

import { pickLocale } from "@/components/ui/format";

/** The locale a server-rendered page formats in: the request's Accept-Language, else the store's country's. */
export async function viewerLocale(storeCountry?: string | null): Promise<string> {
  return pickLocale((await headers()).get("accept-language"), storeCountry);
}
