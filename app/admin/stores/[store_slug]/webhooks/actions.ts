"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/components/admin/form-state";
import { runStoreAction } from "@/components/admin/store-page";
import {
  enableEndpointAsMerchant,
  redeliverAsMerchant,
  rotateWebhookKeyAsMerchant,
  setWebhookUrlAsMerchant,
} from "@/lib/webhooks/admin-webhooks";

// The webhooks page's actions: thin adapters over lib/webhooks/admin-webhooks.ts (role check, then the operation).

const pathOf = (slug: string) => `/admin/stores/${encodeURIComponent(slug)}/webhooks`;

const done = (slug: string, state: FormState) => {
  if (state.ok) revalidatePath(pathOf(slug));
  return state;
};

export async function setWebhookUrlAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const values = { webhook_url: String(data.get("webhook_url") ?? "") };
  return done(
    slug,
    await runStoreAction(values, async (account) => {
      const url = await setWebhookUrlAsMerchant(account, slug, values.webhook_url);
      return url ? `Order webhooks now go to ${url}.` : "Webhooks to your URL are off.";
    }),
  );
}

export async function rotateKeyAction(
  slug: string,
  _previous: FormState,
  _data: FormData,
): Promise<FormState> {
  return done(
    slug,
    await runStoreAction({}, async (account) => {
      const { kid, retired } = await rotateWebhookKeyAsMerchant(account, slug);
      return `New signing key ${kid}. ${retired.length > 0 ? `The previous key (${retired.join(", ")}) stays published for 7 days.` : ""}`.trim();
    }),
  );
}

export async function redeliverAction(
  slug: string,
  deliveryId: string,
  _previous: FormState,
  _data: FormData,
): Promise<FormState> {
  return done(
    slug,
    await runStoreAction({}, async (account) => {
      await redeliverAsMerchant(account, slug, deliveryId);
      return "Queued: it is sent again within seconds.";
    }),
  );
}

export async function enableEndpointAction(
  slug: string,
  endpointId: string,
  _previous: FormState,
  _data: FormData,
): Promise<FormState> {
  return done(
    slug,
    await runStoreAction({}, async (account) => {
      await enableEndpointAsMerchant(account, slug, endpointId);
      return "The endpoint is enabled again.";
    }),
  );
}
