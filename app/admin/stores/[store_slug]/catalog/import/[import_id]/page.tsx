import type { Metadata } from "next";
import { notFound } from "next/navigation";

import { ImportProgress } from "@/components/admin/catalog-import";
import { PageShell } from "@/components/layout/page-shell";
import { toAppError } from "@/lib/core/errors";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";

import { catalogPageAccess } from "../../access";
import { importProgressAction } from "../../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Import — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string; import_id: string }> };

export default async function ImportJobPage({ params }: Props) {
  const { store_slug, import_id } = await params;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}/catalog`;
  const { account, store } = await catalogPageAccess(
    store_slug,
    `${root}/import/${encodeURIComponent(import_id)}`,
  );
  let progress;
  try {
    progress = await runStoreAdminOp(account, store.slug, "getCatalogImport", { importId: import_id });
  } catch (thrown) {
    if (["not_found", "invalid_request"].includes(toAppError(thrown).code)) notFound();
    throw thrown;
  }
  return (
    <PageShell title={`Importing ${progress.fileName}`} description={`Into ${store.name}.`}>
      <ImportProgress
        initial={progress}
        poll={importProgressAction.bind(null, store.slug, progress.id)}
        catalogHref={root}
      />
    </PageShell>
  );
}
