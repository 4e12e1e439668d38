"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

// Bulk import on the admin: the upload form, then a progress bar fed by polling the job row (the import runs on
// the server in batches and writes its progress to the database, so any instance serving the poll can answer),
// then the report of rejected rows.

const EMPTY: FormState = { ok: false, errors: {} };

/** The upload's answer: refusals, or the address of the new import's progress page. */
export type ImportStartState = FormState & { importUrl?: string };
/** The largest upload a server action accepts (Next's default body limit is 1 MB). */
export const MAX_UPLOAD_BYTES = 1_000_000;

export function ImportUploadForm({
  action,
}: {
  action: (state: ImportStartState, data: FormData) => Promise<ImportStartState>;
}) {
  const [state, formAction, pending] = useActionState<ImportStartState, FormData>(action, EMPTY);
  const [tooBig, setTooBig] = useState<string | null>(null);
  const router = useRouter();
  useEffect(() => {
    if (state.importUrl) router.push(state.importUrl);
  }, [state.importUrl, router]);
  return (
    <form
      action={formAction}
      className="grid gap-4"
      onSubmit={(event) => {
        const file = (event.currentTarget.elements.namedItem("file") as HTMLInputElement).files?.[0];
        if (file && file.size > MAX_UPLOAD_BYTES) {
          event.preventDefault();
          setTooBig("The file is larger than 1 MB: split it into several files");
        } else setTooBig(null);
      }}
    >
      <FormError message={state.errors.form} />
      <Field
        id="import-file"
        label="Catalog file"
        hint="A .csv with a header row, or a .json array of products; up to 1 MB (about 5,000 products)"
        error={tooBig ?? state.errors.file}
      >
        {(c) => (
          <input
            {...c}
            type="file"
            name="file"
            accept=".csv,.json,text/csv,application/json"
            className="text-sm file:mr-3 file:rounded-md file:border file:px-3 file:py-1.5"
            required
          />
        )}
      </Field>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Checking the file…" : state.importUrl ? "Opening the import…" : "Import"}
      </Button>
    </form>
  );
}

type Progress = {
  status: "running" | "done" | "failed";
  total: number;
  processed: number;
  created: number;
  rejected: { row: number; field: string; message: string }[];
};

export function ImportProgress({
  initial,
  poll,
  catalogHref,
}: {
  initial: Progress;
  poll: () => Promise<Progress | null>;
  catalogHref: string;
}) {
  const [progress, setProgress] = useState(initial);
  useEffect(() => {
    if (progress.status !== "running") return;
    const timer = setTimeout(async () => {
      const next = await poll().catch(() => null);
      setProgress((p) => (next ? next : { ...p }));
    }, 500);
    return () => clearTimeout(timer);
  }, [progress, poll]);
  const percent = progress.total === 0 ? 100 : Math.floor((progress.processed * 100) / progress.total);
  return (
    <div className="grid gap-6">
      <div className="grid gap-2">
        <div className="flex flex-wrap justify-between gap-2 text-sm">
          <span id="import-progress-label" className="font-medium">
            {progress.status === "running"
              ? "Importing…"
              : progress.status === "done"
                ? "Import finished"
                : "The import stopped on an error"}
          </span>
          <span className="tabular-nums" aria-live="polite">
            {progress.processed} of {progress.total} checked · {progress.created} imported ·{" "}
            {progress.rejected.length} rejected {progress.rejected.length === 1 ? "row" : "rows"}
          </span>
        </div>
        <div
          role="progressbar"
          aria-labelledby="import-progress-label"
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.processed}
          aria-valuetext={`${percent}%`}
          className="bg-muted h-3 w-full overflow-hidden rounded-full"
        >
          <div className="bg-primary h-full transition-[width]" style={{ width: `${percent}%` }} />
        </div>
      </div>
      {progress.status !== "running" ? (
        <section aria-labelledby="rejected-heading" className="grid gap-3">
          <h2 id="rejected-heading" className="text-lg font-semibold">
            Rejected rows
          </h2>
          {progress.rejected.length === 0 ? (
            <p className="text-sm">Every row was imported.</p>
          ) : (
            <>
              <p className="text-muted-foreground text-sm">
                These rows were not imported; the others were. Correct them and import just these rows again.
              </p>
              <Table aria-label="Rejected rows">
                <TableHeader>
                  <TableRow>
                    <TableHead className="text-right">Row</TableHead>
                    <TableHead>Field</TableHead>
                    <TableHead>Why</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {progress.rejected.slice(0, 500).map((r, i) => (
                    <TableRow key={`${r.row}-${r.field}-${i}`}>
                      <TableCell className="text-right tabular-nums">{r.row}</TableCell>
                      <TableCell className="font-mono text-xs break-all">{r.field}</TableCell>
                      <TableCell className="wrap-anywhere">{r.message}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
              {progress.rejected.length > 500 ? (
                <p className="text-muted-foreground text-sm">
                  The first 500 of {progress.rejected.length} are shown.
                </p>
              ) : null}
            </>
          )}
          <Link href={catalogHref} className="text-sm underline underline-offset-4">
            Back to the catalog
          </Link>
        </section>
      ) : null}
    </div>
  );
}
