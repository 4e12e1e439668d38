import { AppError } from "@/lib/core/errors";
import { RAIL_HANDLER_IDS, RAIL_REGISTRY_KEYS, type HandlerId } from "@/lib/ucp/rails";

// Rail selection at completion (seed §1/§4, DECISIONS.md B2): by the inner handler id of the selected
// instrument only. Pure.

export type CompletionInstrument = {
  id?: string;
  handler_id: string;
  type?: string;
  selected?: boolean;
  credential?: { type: string; token: string };
};

const PATH = "$.payment.instruments";
const INNER = Object.values(RAIL_HANDLER_IDS) as string[];
const REGISTRY = Object.values(RAIL_REGISTRY_KEYS) as string[];

export type SelectedRail = { handlerId: HandlerId; instrument: CompletionInstrument; index: number };

/**
 * The rail a completion pays on. One instrument selected (or the only one sent), or — with no instrument —
 * the store's only rail. @throws AppError unknown_payment_handler, multiple_payment_selections,
 *   payment_selection_required
 */
export const selectRail = (
  instruments: readonly CompletionInstrument[],
  offered: readonly string[],
): SelectedRail | { handlerId: HandlerId; instrument: null; index: -1 } => {
  for (const [i, inst] of instruments.entries()) {
    if (REGISTRY.includes(inst.handler_id)) {
      throw new AppError(
        "unknown_payment_handler",
        `"${inst.handler_id}" is a payment_handlers registry key; use the inner handler id ${inst.handler_id.replace(/^sh\./, "")}`,
        { path: `${PATH}[${i}].handler_id` },
      );
    }
    if (!INNER.includes(inst.handler_id) || !offered.includes(inst.handler_id)) {
      throw new AppError(
        "unknown_payment_handler",
        `Unknown payment handler "${inst.handler_id}": this store offers ${offered.join(", ") || "none"}`,
        { path: `${PATH}[${i}].handler_id` },
      );
    }
  }
  const selected = instruments.flatMap((inst, index) => (inst.selected ? [{ inst, index }] : []));
  if (selected.length > 1) {
    throw new AppError(
      "multiple_payment_selections",
      `${selected.length} instruments are selected; select exactly one`,
      { path: `${PATH}[${selected[1]!.index}].selected` },
    );
  }
  const chosen = selected[0] ?? (instruments.length === 1 ? { inst: instruments[0]!, index: 0 } : null);
  if (chosen) {
    return { handlerId: chosen.inst.handler_id as HandlerId, instrument: chosen.inst, index: chosen.index };
  }
  if (offered.length === 1 && instruments.length === 0) {
    return { handlerId: offered[0] as HandlerId, instrument: null, index: -1 };
  }
  throw new AppError(
    "payment_selection_required",
    `Select a payment handler: payment.instruments[{ handler_id, selected: true }] with one of ${offered.join(", ")}`,
    { path: PATH },
  );
};
