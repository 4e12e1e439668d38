import { execute, jsonParam, query, sql, statementOf, type Statement } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { RecordAnswer } from "@/lib/core/operation";
import type { CheckoutStatus, Prisma } from "@/lib/generated/prisma/client";

// The checkout status machine (UCP checkout, CONTRACT §7.2; exact spellings) and THE ONLY code that writes a
// checkout's `status` (STYLE.md §7). Every write is one conditional UPDATE (or the INSERT of a new session) whose
// WHERE clause only matches a status the target may be reached from, so a transition the machine does not
// allow changes nothing (count 0), whoever races it. Enforced two ways: an ESLint rule refuses a
// checkoutSession create/update/upsert whose data carries `status` anywhere but here (eslint.config.mjs), and
// lib/checkout/state-writers.test.ts scans the source tree for raw SQL that writes checkout_sessions.

export const TERMINAL_STATUSES: readonly CheckoutStatus[] = ["completed", "canceled"];

export const isTerminal = (status: CheckoutStatus): boolean => TERMINAL_STATUSES.includes(status);

/** Where each status may be entered from (the transitions the spec allows). */
export const ALLOWED_FROM: Readonly<Record<CheckoutStatus, readonly CheckoutStatus[]>> = {
  // the preflight moves open sessions between incomplete and ready_for_complete
  incomplete: ["incomplete", "ready_for_complete"],
  // ...and a completion that did not charge (decline, provider error, refunded charge) reopens the session
  ready_for_complete: ["incomplete", "ready_for_complete", "complete_in_progress", "requires_escalation"],
  // completion holds the session while the rail charges (the agent may retry from escalation)
  complete_in_progress: ["incomplete", "ready_for_complete", "complete_in_progress", "requires_escalation"],
  // the buyer must act (3-DS, no card token): the hosted page or another completion finishes it
  requires_escalation: ["ready_for_complete", "complete_in_progress", "requires_escalation"],
  // the order is placed (placeOrder)
  completed: ["ready_for_complete", "complete_in_progress", "requires_escalation"],
  // cancel_checkout, or expiry on read (UCP §7.2: expiry cancels)
  canceled: ["incomplete", "ready_for_complete", "complete_in_progress", "requires_escalation"],
};

/** A database handle or a transaction: the transitions run inside the caller's transaction when given one. */
type CheckoutWriter = Pick<Prisma.TransactionClient, "checkoutSession">;

export type Transition = {
  id: string;
  to: CheckoutStatus;
  /** Optimistic concurrency: only if the session is still at this version. */
  version?: number;
  /** Only from these statuses (narrower than the machine allows; never wider). */
  from?: readonly CheckoutStatus[];
  /** Other columns written in the same UPDATE (never `status`). */
  data?: Omit<Prisma.CheckoutSessionUpdateManyMutationInput, "status" | "version">;
};

/**
 * Moves a checkout to `to` when its status (and version, when given) allow it, bumping the version. Returns 1
 * when it moved, 0 when a guard did not match (another writer came first, or the machine forbids it).
 */
export const moveCheckout = async (
  db: CheckoutWriter,
  { id, to, version, from, data }: Transition,
): Promise<number> => {
  const allowed = allowedFrom(to, from);
  const { count } = await db.checkoutSession.updateMany({
    where: { id, status: { in: [...allowed] }, ...(version === undefined ? {} : { version }) },
    data: { ...data, status: to, version: { increment: 1 } },
  });
  return count;
};

/** The statuses `to` may be entered from, narrowed to `from` when given (never wider than the machine). */
const allowedFrom = (to: CheckoutStatus, from?: readonly CheckoutStatus[]): readonly CheckoutStatus[] =>
  from ? from.filter((s) => ALLOWED_FROM[to].includes(s)) : ALLOWED_FROM[to];

/** The columns an update's write and a completion's hold set with the status, and how each is bound. */
const SESSION_COLUMNS = {
  buyer: { column: "buyer", kind: "json" },
  fulfillment: { column: "fulfillment", kind: "json" },
  discountCodes: { column: "discount_codes", kind: "text[]" },
  notes: { column: "notes", kind: "text" },
  totals: { column: "totals", kind: "json" },
  continueToken: { column: "continue_token", kind: "text" },
  paidLinkHash: { column: "paid_link_hash", kind: "text" },
  paymentInstruments: { column: "payment_instruments", kind: "json" },
  context: { column: "context", kind: "json" },
  attribution: { column: "attribution", kind: "json" },
  mandateTermsHistory: { column: "mandate_terms_history", kind: "json" },
  couponGrantId: { column: "coupon_grant_id", kind: "text" },
} as const;

/** What `moveCheckoutNow` writes besides the status: absent (undefined) columns are left as they are. */
export type SessionWrite = {
  [K in keyof typeof SESSION_COLUMNS]?: (typeof SESSION_COLUMNS)[K]["kind"] extends "json"
    ? unknown
    : (typeof SESSION_COLUMNS)[K]["kind"] extends "text[]"
      ? readonly string[]
      : string | null;
};

/**
 * moveCheckout as one statement for the driver adapter (lib/config/sql.ts), without Prisma's client: the same one
 * conditional UPDATE (status allowed, version when given, the version bumped, updated_at now), for the write every
 * update and every completion's hold make (`moveCheckoutNow`) and the order's transaction (lib/orders/place-order.ts).
 * JSON travels as text cast to jsonb and the discount codes as a JSON array (arrays bind alike on both driver
 * adapters); a JSON column set to null becomes SQL NULL.
 */
export const moveCheckoutStatement = (
  { id, to, version, from, data = {} }: Omit<Transition, "data"> & { data?: SessionWrite },
  record: RecordAnswer | null = null,
  /**
   * A write made in the same statement only when the move happens: an `INSERT … SELECT … WHERE EXISTS (SELECT 1
   * FROM moved)`, its values bound through `param`. The statement then answers the rows that write changed.
   */
  andThen?: (param: (value: unknown) => string) => string,
): Statement => {
  const values: unknown[] = [];
  const param = (value: unknown): string => `$${values.push(value)}`;
  const sets = Object.entries(data)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const { column, kind } = SESSION_COLUMNS[key as keyof typeof SESSION_COLUMNS];
      if (kind === "json") return `${column} = CAST(${param(jsonParam(value))} AS jsonb)`;
      if (kind === "text[]") {
        return `${column} = ARRAY(SELECT jsonb_array_elements_text(CAST(${param(JSON.stringify(value))} AS jsonb)))`;
      }
      return `${column} = ${param(value)}`;
    });
  sets.push(`status = CAST(${param(to)} AS checkout_status)`, "version = version + 1");
  sets.push(`updated_at = ${param(new Date())}`);
  const allowed = JSON.stringify(allowedFrom(to, from));
  const text = `UPDATE checkout_sessions SET ${sets.join(", ")}
    WHERE id = ${param(id)}
      AND status::text IN (SELECT jsonb_array_elements_text(CAST(${param(allowed)} AS jsonb)))${
        version === undefined ? "" : ` AND version = ${param(version)}`
      }`;
  if (andThen) {
    const then = andThen(param);
    if (!record) return statementOf(`WITH moved AS (${text} RETURNING 1) ${then}`, values);
    return record(
      statementOf(`WITH moved AS (${text} RETURNING 1), alongside AS (${then} RETURNING 1)`, values),
      "alongside",
    );
  }
  if (!record) return statementOf(text, values);
  // the call's answer stored with the move, only when it moved (lib/idempotency/with-idempotency.ts)
  return record(statementOf(`WITH moved AS (${text} RETURNING 1)`, values), "moved");
};

/**
 * moveCheckout outside any transaction (`moveCheckoutStatement`, with its `andThen` when given). Returns 1 when it
 * moved (and `andThen` wrote its row), 0 otherwise.
 */
export const moveCheckoutNow = (
  transition: Parameters<typeof moveCheckoutStatement>[0],
  andThen?: Parameters<typeof moveCheckoutStatement>[2],
): Promise<number> => execute(moveCheckoutStatement(transition, null, andThen));

/** A new session as create_checkout builds it (the columns it sets; the others take their defaults). */
export type NewCheckout = {
  id: string;
  storeId: string;
  cartId: string | null;
  principalId: string;
  currency: string;
  buyer: unknown;
  fulfillment: unknown;
  discountCodes: readonly string[];
  notes: string | null;
  totals: unknown;
  agentProfile: string | null;
  /** The negotiated UCP version the session is pinned to. */
  ucpVersion: string;
  paymentInstruments: unknown;
  context: unknown;
  attribution: unknown;
  mandateTermsHistory: unknown;
  expiresAt: Date;
};

/** A line of a new session (checkout_line_items' columns but its checkout). */
export type NewCheckoutLine = {
  id: string;
  variantId: string;
  quantity: number;
  priceMinor: number;
  position: number;
};

/**
 * The statement that inserts a new session in its first status (the preflight's verdict) with its lines: atomic
 * without a transaction, and one text (prepared once) whatever the number of lines, which travel as one JSON
 * array (arrays travel as JSON so both driver adapters bind them alike). Written in SQL: Prisma's nested create
 * reads the row back, and a create per table needs a transaction around them.
 */
export const checkoutInsert = (
  session: NewCheckout,
  status: Extract<CheckoutStatus, "incomplete" | "ready_for_complete">,
  lines: readonly NewCheckoutLine[],
  record: RecordAnswer | null = null,
): Statement => {
  const now = new Date();
  const rows = JSON.stringify(
    lines.map((l) => ({
      id: l.id,
      variant_id: l.variantId,
      quantity: l.quantity,
      price_minor: l.priceMinor,
      position: l.position,
    })),
  );
  const inserted = sql`
    WITH checkout AS (
      INSERT INTO checkout_sessions (id, store_id, cart_id, principal_id, status, currency, buyer, fulfillment,
        discount_codes, notes, totals, agent_profile, ucp_version, payment_instruments, context, attribution,
        mandate_terms_history, expires_at, created_at, updated_at)
      VALUES (${session.id}, ${session.storeId}, ${session.cartId}, ${session.principalId},
        CAST(${status} AS checkout_status), ${session.currency}, CAST(${jsonParam(session.buyer)} AS jsonb),
        CAST(${jsonParam(session.fulfillment)} AS jsonb),
        ARRAY(SELECT jsonb_array_elements_text(CAST(${JSON.stringify(session.discountCodes)} AS jsonb))),
        ${session.notes}, CAST(${jsonParam(session.totals) ?? "[]"} AS jsonb), ${session.agentProfile},
        ${session.ucpVersion},
        CAST(${jsonParam(session.paymentInstruments) ?? "[]"} AS jsonb), CAST(${jsonParam(session.context)} AS jsonb),
        CAST(${jsonParam(session.attribution)} AS jsonb),
        CAST(${jsonParam(session.mandateTermsHistory) ?? "[]"} AS jsonb), ${session.expiresAt}, ${now}, ${now})
      RETURNING id),
    written AS (
      INSERT INTO checkout_line_items (id, checkout_id, variant_id, quantity, price_minor, position)
      SELECT l.id, checkout.id, l.variant_id, l.quantity, l.price_minor, l.position
      FROM checkout, jsonb_to_recordset(CAST(${rows} AS jsonb))
        AS l(id text, variant_id text, quantity int, price_minor int, position int)
      RETURNING 1)`;
  // the call's answer stored with the session (lib/idempotency/with-idempotency.ts); alone, the statement ends with
  // the count of lines written
  return record
    ? record(inserted, "written")
    : { ...inserted, sql: `${inserted.sql} SELECT count(*) FROM written` };
};

/** An open session's status from its blocking messages: any error blocks completion. */
export const openStatusFor = (messages: readonly { type: string }[]): CheckoutStatus =>
  messages.some((m) => m.type === "error") ? "incomplete" : "ready_for_complete";

/**
 * Update and cancel refuse sessions that are terminal, or whose completion is running (UCP: completed is
 * immutable; cancel on completed/canceled is not allowed; an update during complete_in_progress is rejected).
 * @throws AppError checkout_not_modifiable
 */
export const assertModifiable = (id: string, status: CheckoutStatus, action: "update" | "cancel"): void => {
  if (!isTerminal(status) && status !== "complete_in_progress") return;
  throw new AppError(
    "checkout_not_modifiable",
    `Checkout ${id} is ${status}: it cannot be ${action === "update" ? "updated" : "canceled"}`,
    { path: "$.status" },
  );
};

/**
 * The checkout's stored continue token, `token` written first when it has none (kept once set). One statement on
 * the driver adapter (every crypto prepare sends it), here with every raw write of checkout_sessions; read again
 * in the rare case a racing writer set it in between.
 */
export const storedContinueToken = async (checkoutId: string, token: string): Promise<string> => {
  const [row] = await query<{ token: string | null }>(sql`
    WITH written AS (
      UPDATE checkout_sessions SET continue_token = ${token}
      WHERE id = ${checkoutId} AND continue_token IS NULL
      RETURNING continue_token)
    SELECT COALESCE((SELECT continue_token FROM written),
                    (SELECT continue_token FROM checkout_sessions WHERE id = ${checkoutId})) AS token`);
  if (row?.token) return row.token;
  const [again] = await query<{ token: string | null }>(
    sql`SELECT continue_token AS token FROM checkout_sessions WHERE id = ${checkoutId}`,
  );
  if (!again?.token) throw new AppError("not_found", `No checkout "${checkoutId}"`, { path: "$.id" });
  return again.token;
};
