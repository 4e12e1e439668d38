import "server-only";

import { createHash } from "node:crypto";

import { newId } from "@/lib/config/ids";
import { execute, jsonParam, query, sql } from "@/lib/config/sql";
import { logger } from "@/lib/core/log";
import type { Store } from "@/lib/generated/prisma/client";
import { normalizeDestination } from "@/lib/mandates/mandate-terms";

import { missingAddressFields, sentDestinationId, type Destination } from "./fulfillment";
import type { CheckoutDraft } from "./price-checkout";
import type { CommonCheckoutFields } from "./schemas";

// Saved addresses (a store's opt-in, Store.rememberAddresses): a complete shipping address a caller sends for a
// buyer's e-mail is kept, under that caller's principal, and offered back to the same caller when it later asks
// that buyer's checkout for shipping without an address. The key is (store, caller, e-mail): a caller is only
// ever shown addresses it sent itself, so naming someone's e-mail reveals nothing it did not already know.
//
// Nothing is written before the checkout is: the address's id is decided first (the saved one for the same
// address, or a new one), the checkout is written with it, and only then is a new address saved. A refused or
// failed request leaves no saved address behind.

/** How many saved addresses a checkout offers (the most recently saved first). */
const OFFERED = 10;

type SavedRow = { id: string; address: Omit<Destination, "id"> };

/** One address, whatever its spacing and case of country: UCP's address fields as a mandate signs them. */
export const addressFingerprint = (destination: Omit<Destination, "id">): string =>
  createHash("sha256")
    .update(JSON.stringify(normalizeDestination({ ...destination, id: "" })))
    .digest("hex");

const addressOf = ({ id: _id, ...address }: Destination): Omit<Destination, "id"> => address;

/** A buyer's e-mail as addresses are kept under it (lib/stores/forget-saved-addresses.ts reads it the same way). */
const emailKey = (buyer: CheckoutDraft["buyer"]): string | undefined => buyer?.email?.trim().toLowerCase();

const savedFor = async (storeId: string, principalId: string, email: string): Promise<Destination[]> =>
  (
    await query<SavedRow>(sql`
      SELECT id, address FROM saved_addresses
      WHERE store_id = ${storeId} AND principal_id = ${principalId} AND email = ${email}
      ORDER BY created_at DESC, id LIMIT ${OFFERED}`)
  ).map((r) => ({ ...r.address, id: r.id }));

const savedIdOf = async (
  storeId: string,
  principalId: string,
  email: string,
  fingerprint: string,
): Promise<string | null> =>
  (
    await query<{ id: string }>(sql`
      SELECT id FROM saved_addresses
      WHERE store_id = ${storeId} AND principal_id = ${principalId} AND email = ${email}
        AND fingerprint = ${fingerprint}`)
  )[0]?.id ?? null;

export type Remembered = {
  draft: CheckoutDraft;
  /** Saves the new address; call once the checkout is written. Never throws: a lost entry is only not offered. */
  save: () => Promise<void>;
};

const NOTHING_TO_SAVE = async () => {};

/**
 * The draft with the caller's saved addresses applied: offered when the request asks for shipping with no address
 * and none is chosen; a newly sent, complete address without an id of the agent's gets its saved id (the same
 * address sent again keeps the id it was saved under). Reads only; `save` writes.
 */
export const rememberAddresses = async (
  store: Store,
  principalId: string,
  previous: Pick<CheckoutDraft, "buyer" | "fulfillment">,
  applied: CheckoutDraft,
  input: Pick<CommonCheckoutFields, "fulfillment" | "shipping_address">,
): Promise<Remembered> => {
  if (!store.rememberAddresses) return { draft: applied, save: NOTHING_TO_SAVE };
  const email = emailKey(applied.buyer);
  let draft = applied;
  if (draft.fulfillment.offered && email !== emailKey(previous.buyer)) {
    // another buyer: the addresses offered were the previous buyer's
    const { offered: _previousBuyers, ...fulfillment } = draft.fulfillment;
    draft = { ...draft, fulfillment };
  }
  const unchanged = { draft, save: NOTHING_TO_SAVE };
  if (!email) return unchanged;
  const { destination } = draft.fulfillment;
  const method = input.fulfillment?.methods[0];
  if (!destination) {
    // asked for shipping, sent no address and chose none: what this caller saved for the buyer
    const asked = method && !method.destinations && method.selected_destination_id === undefined;
    if (!asked) return unchanged;
    const offered = await savedFor(store.id, principalId, email);
    if (offered.length === 0) return unchanged;
    return { draft: { ...draft, fulfillment: { ...draft.fulfillment, offered } }, save: NOTHING_TO_SAVE };
  }
  const before = previous.fulfillment.destination;
  const isNew = JSON.stringify(addressOf(destination)) !== JSON.stringify(before ? addressOf(before) : null);
  const sentId = sentDestinationId(input);
  if (!isNew && before && sentId === undefined && destination.id !== before.id) {
    // the same address sent again without an id keeps the id the checkout already gave it
    return {
      draft: {
        ...draft,
        fulfillment: { ...draft.fulfillment, destination: { ...destination, id: before.id } },
      },
      save: NOTHING_TO_SAVE,
    };
  }
  if (!isNew || sentId !== undefined || missingAddressFields(destination).length > 0) return unchanged;
  const fingerprint = addressFingerprint(destination);
  const existing = await savedIdOf(store.id, principalId, email, fingerprint);
  const id = existing ?? newId("savedAddress");
  const fulfillment = { ...draft.fulfillment, destination: { ...destination, id } };
  if (existing) return { draft: { ...draft, fulfillment }, save: NOTHING_TO_SAVE };
  const save = async () => {
    try {
      // the same address saved meanwhile by another request keeps its first id
      await execute(sql`
        INSERT INTO saved_addresses (id, store_id, principal_id, email, fingerprint, address, created_at)
        VALUES (${id}, ${store.id}, ${principalId}, ${email}, ${fingerprint},
                CAST(${jsonParam(addressOf(destination))} AS jsonb), ${new Date()})
        ON CONFLICT (store_id, principal_id, email, fingerprint) DO NOTHING`);
    } catch (error) {
      logger().warn({ err: error, storeId: store.id }, "saved address not kept");
    }
  };
  return { draft: { ...draft, fulfillment }, save };
};
