import { formatMoney } from "./money";

// Money in the bridge's results (STYLE.md §1 rule 4): every amount stays in integer minor units as the service
// sent it, and gains a formatted twin a model can quote to a person without doing arithmetic:
// - a UCP Price `{amount, currency}` gains `formatted`;
// - inside an object with a `currency` (a cart, a checkout, an order), a total `{type, amount}` gains `formatted`,
//   and a bare integer `price` gains `price_formatted`.

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isCurrency = (value: unknown): value is string => typeof value === "string" && /^[A-Z]{3}$/.test(value);

const present = (value: unknown, currency: string | undefined): unknown => {
  if (Array.isArray(value)) return value.map((v) => present(v, currency));
  if (!isRecord(value)) return value;
  const own = isCurrency(value.currency) ? value.currency : currency;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] = present(member, own);
    if (key === "price" && Number.isInteger(member) && own) {
      out.price_formatted = formatMoney(member as number, own);
    }
  }
  if (Number.isInteger(value.amount) && own && !("formatted" in value)) {
    out.formatted = formatMoney(value.amount as number, own);
  }
  return out;
};

/** A service answer with formatted amounts added beside every minor-unit amount it carries. */
export const withFormattedMoney = <T>(body: T): T => present(body, undefined) as T;
