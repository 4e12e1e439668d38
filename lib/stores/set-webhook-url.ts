import "server-only";

import { lookup } from "node:dns/promises";

import ipaddr from "ipaddr.js";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { isPublicAddress } from "@/lib/outbound/guarded-fetch";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";

import { getStoreOrThrow } from "./get-store-or-throw";

// The merchant's order-webhook URL (seed §6): one HTTPS URL per store; blank disables webhooks silently. Checked
// when it is set (DECISIONS.md B10): a live store, and any store of a production deployment that does not allow
// private targets (lib/outbound/policy.ts), needs https and a host that resolves only to public addresses.
// The delivery guard checks again on every attempt (DNS can change after configuration).

/** @throws AppError invalid_request (with the reason), store_not_found */
export const setStoreWebhookUrl = async (slug: string, raw: string): Promise<string | null> => {
  const store = await getStoreOrThrow(slug);
  const value = raw.trim();
  const db = await getDb();
  if (value === "") {
    await db.store.update({ where: { id: store.id }, data: { webhookUrl: null } });
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError("invalid_request", `"${value}" is not a URL`, { path: "$.webhook_url" });
  }
  // live stores, and every store of a production deployment without OUTBOUND_ALLOW_PRIVATE=1
  const publicOnly = !outboundAllowsPrivate(store);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && !publicOnly)) {
    throw new AppError("invalid_request", "The webhook URL must use https", { path: "$.webhook_url" });
  }
  if (url.username || url.password) {
    throw new AppError("invalid_request", "The webhook URL must not carry credentials", {
      path: "$.webhook_url",
    });
  }
  if (publicOnly) {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = ipaddr.isValid(host)
      ? [host]
      : await lookup(host, { all: true }).then(
          (found) => found.map((a) => a.address),
          () => {
            throw new AppError("invalid_request", `${host} does not resolve`, { path: "$.webhook_url" });
          },
        );
    const blocked = addresses.find((a) => !isPublicAddress(a));
    if (blocked !== undefined || addresses.length === 0) {
      throw new AppError(
        "invalid_request",
        `${host} resolves to ${blocked ?? "nothing"}, a non-public address: webhooks from this store go only to public hosts`,
        { path: "$.webhook_url" },
      );
    }
  }
  await db.store.update({ where: { id: store.id }, data: { webhookUrl: url.href } });
  return url.href;
};
