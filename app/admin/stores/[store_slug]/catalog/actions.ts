"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { after } from "next/server";

import type { ImportStartState } from "@/components/admin/catalog-import";
import { errorState, SESSION_ENDED } from "@/components/admin/error-state";
import type { FormState } from "@/components/admin/form-state";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import type { CatalogImportProgress } from "@/lib/catalog/import/get-catalog-import";
import { runCatalogImport } from "@/lib/catalog/import/run-catalog-import";
import { logError } from "@/lib/core/log";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";

import { formField, productFromForm, type RowMaps } from "./product-form-data";

// The catalog pages' actions: each runs a store admin operation (staff or owner of the store) and answers its form.

const root = (slug: string) => `/admin/stores/${encodeURIComponent(slug)}/catalog`;

const refused = (thrown: unknown, values: Record<string, string>, rows: RowMaps): FormState => {
  const state = errorState(thrown, values);
  return {
    ...state,
    errors: Object.fromEntries(Object.entries(state.errors).map(([k, v]) => [formField(k, rows), v])),
  };
};

export async function saveProductAction(
  slug: string,
  productId: string | null,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const { raw, values, rows } = productFromForm(data);
  let id: string;
  try {
    id = productId
      ? (await runStoreAdminOp(account, slug, "updateProduct", { ...raw, productId })).id
      : (await runStoreAdminOp(account, slug, "createProduct", raw)).id;
  } catch (thrown) {
    return refused(thrown, values, rows);
  }
  revalidatePath(root(slug), "layout");
  redirect(`${root(slug)}/${encodeURIComponent(id)}?saved=1`);
}

export async function deleteProductAction(
  slug: string,
  productId: string,
  _previous: FormState,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  try {
    await runStoreAdminOp(account, slug, "deleteProduct", { productId });
  } catch (thrown) {
    return errorState(thrown);
  }
  revalidatePath(root(slug), "layout");
  redirect(`${root(slug)}?deleted=1`);
}

/** Runs an import after the response, in this process; progress is on the job row for any instance to read. */
const runLater = (importId: string) =>
  after(async () => {
    try {
      await runCatalogImport(importId);
    } catch (thrown) {
      // the job is marked failed; the page shows it. The cause goes to the log only.
      logError(thrown instanceof Error ? thrown : new Error(String(thrown)), `import:${importId}`);
    }
  });

/**
 * Checks the uploaded file, records the import and starts writing it; answers the job page's address for the form to
 * open.
 */
export async function startImportAction(
  slug: string,
  _previous: ImportStartState,
  data: FormData,
): Promise<ImportStartState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const file = data.get("file");
  if (!(file instanceof File) || file.size === 0)
    return { ok: false, errors: { file: "Choose a CSV or JSON file" } };
  const format = /\.json$/i.test(file.name) || file.type === "application/json" ? "json" : "csv";
  let importId: string;
  try {
    const job = await runStoreAdminOp(account, slug, "startCatalogImport", {
      fileName: file.name,
      format,
      text: await file.text(),
    });
    importId = job.id;
    if (job.status === "running") runLater(job.id);
  } catch (thrown) {
    return errorState(thrown);
  }
  return { ok: true, errors: {}, importUrl: `${root(slug)}/import?job=${encodeURIComponent(importId)}` };
}

/** How far an import is (the page polls this); resumes a job whose writer went away. */
export async function importProgressAction(
  slug: string,
  importId: string,
): Promise<CatalogImportProgress | null> {
  const account = await getMerchantSession();
  if (!account) return null;
  const progress = await runStoreAdminOp(account, slug, "getCatalogImport", { importId });
  if (progress.isStalled) runLater(importId);
  if (progress.status !== "running") revalidatePath(root(slug));
  return progress;
}
