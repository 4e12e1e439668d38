"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { ChevronDown, PackageCheck, RotateCcw, XCircle } from "lucide-react";
import { useActionState, useState, type ReactNode } from "react";

import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
} from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { useToast } from "@/components/ui/toast";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

// The order page's actions: "Fulfil items" is the primary button; refund and cancel send money back, so they sit
// under "More actions" and each opens a dialog that says what happens before anything is sent. Each form posts to
// its server action, which validates on the server and answers the message of the field it refused (shown beside
// it, the dialog stays open) or a notice (the dialog closes, the notice comes as a toast, the page's data is
// reloaded by revalidatePath).

type Action = (previous: FormState, data: FormData) => Promise<FormState>;
const EMPTY: FormState = { ok: false, errors: {} };

const value = (state: FormState, name: string) => (state.ok ? undefined : state.values?.[name]);

/**
 * The form's state, closing the dialog and announcing the notice as soon as the action succeeded: done when the
 * action's answer arrives, not in an effect, because that answer also reloads the page's data, which may remove
 * this very form (nothing left to ship) before an effect would run.
 */
const useDialogAction = (action: Action, close: () => void) => {
  const toast = useToast();
  return useActionState(async (previous: FormState, data: FormData) => {
    const next = await action(previous, data);
    if (next.ok) {
      close();
      if (next.message) toast({ title: next.message, tone: "success" });
    }
    return next;
  }, EMPTY);
};

function ActionDialog({
  open,
  onOpenChange,
  title,
  description,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogTitle>{title}</DialogTitle>
        <DialogDescription>{description}</DialogDescription>
        {children}
      </DialogContent>
    </Dialog>
  );
}

function FulfilForm({ action, close }: { action: Action; close: () => void }) {
  const [state, formAction, pending] = useDialogAction(action, close);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Fulfil items">
      <FormError message={state.errors.form} />
      <Field id="carrier" label="Carrier" error={state.errors.carrier}>
        {(c) => <Input {...c} name="carrier" defaultValue={value(state, "carrier")} required />}
      </Field>
      <Field id="trackingNumber" label="Tracking number" error={state.errors.trackingNumber}>
        {(c) => <Input {...c} name="trackingNumber" defaultValue={value(state, "trackingNumber")} required />}
      </Field>
      <Field
        id="trackingUrl"
        label="Tracking link (optional)"
        hint="An https link the buyer can follow."
        error={state.errors.trackingUrl ?? state.errors.tracking_url}
      >
        {(c) => <Input {...c} name="trackingUrl" type="url" defaultValue={value(state, "trackingUrl")} />}
      </Field>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="ghost">
            Not now
          </Button>
        </DialogClose>
        <Button type="submit" disabled={pending}>
          {pending ? "Shipping…" : "Mark as shipped"}
        </Button>
      </DialogFooter>
    </form>
  );
}

function RefundForm({
  action,
  close,
  currency,
  refundable,
}: {
  action: Action;
  close: () => void;
  currency: string;
  refundable: string;
}) {
  const [state, formAction, pending] = useDialogAction(action, close);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Refund">
      <FormError message={state.errors.form} />
      <Field
        id="amount"
        label={`Amount (${currency})`}
        hint={`Up to ${refundable}. Leave blank to refund everything left.`}
        error={state.errors.amount}
      >
        {(c) => <Input {...c} name="amount" inputMode="decimal" defaultValue={value(state, "amount")} />}
      </Field>
      <Field id="refund-reason" label="Reason (optional)" error={state.errors.reason}>
        {(c) => <Input {...c} name="reason" defaultValue={value(state, "reason")} />}
      </Field>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="ghost">
            Keep the money
          </Button>
        </DialogClose>
        <Button type="submit" disabled={pending}>
          {pending ? "Refunding…" : "Refund"}
        </Button>
      </DialogFooter>
    </form>
  );
}

function CancelForm({ action, close }: { action: Action; close: () => void }) {
  const [state, formAction, pending] = useDialogAction(action, close);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Cancel the order">
      <FormError message={state.errors.form} />
      <Field id="cancel-reason" label="Reason (optional)" error={state.errors.reason}>
        {(c) => <Input {...c} name="reason" defaultValue={value(state, "reason")} />}
      </Field>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="ghost">
            Keep the order
          </Button>
        </DialogClose>
        <Button type="submit" variant="destructive" disabled={pending}>
          {pending ? "Canceling…" : "Cancel the order"}
        </Button>
      </DialogFooter>
    </form>
  );
}

const itemClass =
  "data-[highlighted]:bg-muted flex cursor-default items-center gap-2 rounded-sm px-2 py-2 text-sm outline-none";

type Dialogs = "fulfil" | "refund" | "cancel" | null;

/** The order's actions: what this account may do now, each behind its dialog. */
export function OrderActions({
  fulfil,
  refund,
  cancel,
  toShip,
}: {
  /** Bound server actions; null when the action does not apply (or the role may not). */
  fulfil: Action | null;
  refund: { action: Action; currency: string; refundable: string } | null;
  cancel: { action: Action; refundNote: string } | null;
  /** Units still to ship, for the dialog's sentence. */
  toShip: number;
}) {
  const [open, setOpen] = useState<Dialogs>(null);
  const close = () => setOpen(null);
  const onOpenChange = (which: Dialogs) => (next: boolean) => setOpen(next ? which : null);
  const hasMore = refund !== null || cancel !== null;
  if (!fulfil && !hasMore) return null;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {fulfil ? (
        <Button onClick={() => setOpen("fulfil")}>
          <PackageCheck aria-hidden />
          Fulfil items
        </Button>
      ) : null}
      {hasMore ? (
        <DropdownMenu.Root modal={false}>
          <DropdownMenu.Trigger asChild>
            <Button variant="outline">
              More actions
              <ChevronDown aria-hidden />
            </Button>
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content
              align="end"
              sideOffset={6}
              className="bg-card text-card-foreground z-50 min-w-48 rounded-md border p-1 shadow-lg"
            >
              {refund ? (
                <DropdownMenu.Item className={itemClass} onSelect={() => setOpen("refund")}>
                  <RotateCcw aria-hidden className="size-4" /> Refund…
                </DropdownMenu.Item>
              ) : null}
              {cancel ? (
                <DropdownMenu.Item
                  className={`${itemClass} text-destructive`}
                  onSelect={() => setOpen("cancel")}
                >
                  <XCircle aria-hidden className="size-4" /> Cancel the order…
                </DropdownMenu.Item>
              ) : null}
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
      ) : null}
      {fulfil ? (
        <ActionDialog
          open={open === "fulfil"}
          onOpenChange={onOpenChange("fulfil")}
          title="Fulfil items"
          description={`Ships the ${toShip === 1 ? "item" : `${toShip} items`} not shipped yet. The buyer's agent is told the carrier and tracking number.`}
        >
          <FulfilForm action={fulfil} close={close} />
        </ActionDialog>
      ) : null}
      {refund ? (
        <ActionDialog
          open={open === "refund"}
          onOpenChange={onOpenChange("refund")}
          title="Refund"
          description="All or part of what was paid goes back to the buyer through the rail that charged."
        >
          <RefundForm
            action={refund.action}
            close={close}
            currency={refund.currency}
            refundable={refund.refundable}
          />
        </ActionDialog>
      ) : null}
      {cancel ? (
        <ActionDialog
          open={open === "cancel"}
          onOpenChange={onOpenChange("cancel")}
          title="Cancel the order?"
          description={`The items go back in stock and ${cancel.refundNote}. This cannot be undone.`}
        >
          <CancelForm action={cancel.action} close={close} />
        </ActionDialog>
      ) : null}
    </div>
  );
}

/**
 * An agent's request waiting for the store, at the top of the order page: what it asks and why, with Approve
 * (the money goes back at once, so a dialog says how much first) and Decline (with the reason the agent passes on).
 * Without the actions (staff) it only says who may answer.
 */
export function OrderRequestPanel({
  title,
  from,
  reason,
  consequence,
  approve,
  decline,
}: {
  /** "Refund requested: $5.00" */
  title: string;
  /** Who asked and when (the page renders the local time). */
  from: ReactNode;
  reason: string;
  /** What approving does, in a sentence ("$12.00 goes back to the buyer (Visa ending 4242)"). */
  consequence: string;
  approve: Action | null;
  decline: Action | null;
}) {
  const [open, setOpen] = useState<"approve" | "decline" | null>(null);
  const close = () => setOpen(null);
  return (
    <section
      aria-label="Request from the agent"
      className="border-warning-soft-foreground/30 bg-warning-soft text-warning-soft-foreground grid gap-3 rounded-lg border p-4 text-sm"
    >
      <div className="grid gap-1">
        <h2 className="font-medium">{title}</h2>
        <p>{from}</p>
        <p>
          <span className="font-medium">Reason:</span> “{reason}”
        </p>
        <p>If you approve, {consequence}.</p>
      </div>
      {approve && decline ? (
        <div className="flex flex-wrap gap-2">
          <Button onClick={() => setOpen("approve")}>Approve</Button>
          <Button variant="outline" onClick={() => setOpen("decline")}>
            Decline…
          </Button>
          <ActionDialog
            open={open === "approve"}
            onOpenChange={(next) => setOpen(next ? "approve" : null)}
            title="Approve the request?"
            description={`${consequence[0]?.toUpperCase() ?? ""}${consequence.slice(1)}. The agent is told at once. This cannot be undone.`}
          >
            <ApproveForm action={approve} close={close} />
          </ActionDialog>
          <ActionDialog
            open={open === "decline"}
            onOpenChange={(next) => setOpen(next ? "decline" : null)}
            title="Decline the request"
            description="The agent is told your reason, to pass on to the buyer. Nothing changes on the order."
          >
            <DeclineForm action={decline} close={close} />
          </ActionDialog>
        </div>
      ) : (
        <p>An owner of the store can approve or decline it.</p>
      )}
    </section>
  );
}

function ApproveForm({ action, close }: { action: Action; close: () => void }) {
  const [state, formAction, pending] = useDialogAction(action, close);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Approve the request">
      <FormError message={state.errors.form} />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="ghost">
            Not now
          </Button>
        </DialogClose>
        <Button type="submit" disabled={pending}>
          {pending ? "Approving…" : "Approve"}
        </Button>
      </DialogFooter>
    </form>
  );
}

function DeclineForm({ action, close }: { action: Action; close: () => void }) {
  const [state, formAction, pending] = useDialogAction(action, close);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Decline the request">
      <FormError message={state.errors.form} />
      <Field
        id="decline-reason"
        label="Reason for the buyer"
        hint="Such as: “Returns are accepted within 30 days of delivery.”"
        error={state.errors.reason}
      >
        {(c) => <Input {...c} name="reason" defaultValue={value(state, "reason")} required />}
      </Field>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="ghost">
            Not now
          </Button>
        </DialogClose>
        <Button type="submit" variant="destructive" disabled={pending}>
          {pending ? "Declining…" : "Decline"}
        </Button>
      </DialogFooter>
    </form>
  );
}
