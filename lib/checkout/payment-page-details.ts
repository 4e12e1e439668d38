import { readFulfillmentState } from "./fulfillment";

// What a pay page shows above the total besides the lines and the money, read from a checkout's stored buyer and
// fulfillment state: who gets the receipt (email), where the parcel goes (ship-to) and how (the chosen shipping
// option's title). Pure: the payment pages' loaders and the receipt pass the rows they already read.

export type ShipTo = {
  /** The recipient's name on the address, else the buyer's. */
  name: string | null;
  /** The address as it is written on a parcel: street, extended, "city, region postal code". */
  lines: string[];
  /** ISO 3166-1 alpha-2; the page names it in the viewer's language. */
  country: string | null;
};

export type PaymentPageDetails = {
  email: string | null;
  shipTo: ShipTo | null;
  /** The chosen shipping option's title ("Standard"), when the checkout ships and one was chosen. */
  shippingOption: string | null;
};

type StoredBuyer = { email?: unknown; first_name?: unknown; last_name?: unknown };

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

const fullName = (first: unknown, last: unknown): string | null =>
  [text(first), text(last)].filter(Boolean).join(" ") || null;

export const paymentPageDetailsOf = (
  session: { buyer: unknown; fulfillment: unknown },
  selectedOption: { title: string } | null = null,
): PaymentPageDetails => {
  const buyer = (session.buyer && typeof session.buyer === "object" ? session.buyer : {}) as StoredBuyer;
  const { destination } = readFulfillmentState(session.fulfillment);
  const cityLine = destination
    ? [
        [text(destination.address_locality), text(destination.address_region)].filter(Boolean).join(", "),
        text(destination.postal_code),
      ]
        .filter(Boolean)
        .join(" ")
    : "";
  const lines = destination
    ? [text(destination.street_address), text(destination.extended_address), text(cityLine)].filter(
        (l): l is string => l !== null,
      )
    : [];
  return {
    email: text(buyer.email),
    shipTo:
      destination && lines.length > 0
        ? {
            name:
              fullName(destination.first_name, destination.last_name) ??
              fullName(buyer.first_name, buyer.last_name),
            lines,
            country: text(destination.address_country),
          }
        : null,
    shippingOption: selectedOption ? text(selectedOption.title) : null,
  };
};

/** A product's first image (its stored media list), for the line on a pay page; null without one. */
export const firstImageOf = (media: unknown): string | null => {
  const first: unknown = Array.isArray(media) ? media[0] : undefined;
  const url = first && typeof first === "object" ? (first as { url?: unknown }).url : undefined;
  return typeof url === "string" &&
    ((url.startsWith("/") && !url.startsWith("//")) || url.startsWith("https://"))
    ? url
    : null;
};
