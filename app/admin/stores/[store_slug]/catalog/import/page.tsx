import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";

import { ImportProgress, ImportUploadForm } from "@/components/admin/catalog-import";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CSV_COLUMNS } from "@/lib/catalog/import/rows";
import { toAppError } from "@/lib/core/errors";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";

import { catalogPageAccess } from "../access";
import { importProgressAction, startImportAction } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Import products — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }>; searchParams: Promise<{ job?: string }> };

export default async function ImportPage({ params, searchParams }: Props) {
  const { store_slug } = await params;
  const { job } = await searchParams;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}/catalog`;
  const { account, store } = await catalogPageAccess(store_slug, `${root}/import`);
  if (job) {
    // one import's progress, then its report (?job=<id>)
    let progress;
    try {
      progress = await runStoreAdminOp(account, store.slug, "getCatalogImport", { importId: job });
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
  return (
    <PageShell
      title="Import products"
      description="Each row is checked like the product form; good products are added, bad rows are reported."
      actions={
        <Link href={root} className="text-sm underline underline-offset-4">
          Back to the catalog
        </Link>
      }
    >
      <div className="grid gap-6 md:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Upload</CardTitle>
          </CardHeader>
          <CardContent>
            <ImportUploadForm action={startImportAction.bind(null, store.slug)} />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>The CSV columns</CardTitle>
            <CardDescription>
              A header row naming some of these; title and price are required. Prices in {store.currency}.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-2 text-sm">
            <p className="font-mono text-xs break-words">{CSV_COLUMNS.join(", ")}</p>
            <ul className="text-muted-foreground list-disc space-y-1 pl-5">
              <li>Rows with the same handle, one after another, are one product with several variants.</li>
              <li>
                Categories, tags and image URLs: several separated by |. Attributes: name=value|name=value.
              </li>
              <li>Quote a cell that holds a comma, a quote or a line break (&quot;like, this&quot;).</li>
              <li>JSON: an array of products with the product form&apos;s fields and a variants list.</li>
            </ul>
          </CardContent>
        </Card>
      </div>
    </PageShell>
  );
}
