import type { Metadata } from "next";
import Link from "next/link";

import { Notice } from "@/components/admin/form-messages";
import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { formatCount, formatMoneyRange } from "@/components/ui/format";
import { Input } from "@/components/ui/input";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";

import { catalogPageAccess } from "./access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Catalog — Merchant admin", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string }>;
  searchParams: Promise<{ q?: string; page?: string; deleted?: string }>;
};

export default async function CatalogPage({ params, searchParams }: Props) {
  const { store_slug } = await params;
  const { q = "", page = "1", deleted } = await searchParams;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}/catalog`;
  const { account, store } = await catalogPageAccess(store_slug, root);
  const pageNumber = /^\d{1,6}$/.test(page) && Number(page) >= 1 ? page : "1";
  const list = await runStoreAdminOp(account, store.slug, "listProducts", {
    query: q.slice(0, 200),
    page: pageNumber,
  });
  const locale = await viewerLocale(store.country);
  const href = (n: number) => `${root}?${new URLSearchParams({ ...(q ? { q } : {}), page: String(n) })}`;
  return (
    <PageShell
      title="Catalog"
      description={`${list.total} ${list.total === 1 ? "product" : "products"}${q ? ` matching “${q}”` : ""}`}
      actions={
        <div className="flex flex-wrap gap-2">
          <Button asChild variant="outline">
            <Link href={`${root}/import`}>Import CSV or JSON</Link>
          </Button>
          <Button asChild>
            <Link href={`${root}/new`}>Add a product</Link>
          </Button>
        </div>
      }
    >
      <div className="grid gap-4">
        {deleted ? <Notice>The product is deleted.</Notice> : null}
        <form role="search" action={root} className="flex flex-wrap items-end gap-2">
          <label htmlFor="catalog-q" className="sr-only">
            Search products
          </label>
          <Input
            id="catalog-q"
            name="q"
            type="search"
            defaultValue={q}
            placeholder="Title, handle or SKU"
            className="max-w-sm"
          />
          <Button type="submit" variant="secondary">
            Search
          </Button>
        </form>
        {list.products.length === 0 ? (
          <EmptyState title={q ? "No product matches" : "No products yet"}>
            {q ? "Try another word, or clear the search." : "Add one, or import a whole catalog from a file."}
          </EmptyState>
        ) : (
          <Table aria-label="Products">
            <TableHeader>
              <TableRow>
                <TableHead>Product</TableHead>
                <TableHead className="hidden text-right sm:table-cell">Variants</TableHead>
                <TableHead className="text-right">Price</TableHead>
                <TableHead className="hidden text-right sm:table-cell">Inventory</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {list.products.map((p) => {
                const prices = p.variants.map((v) => v.priceMinor);
                const low = Math.min(...prices);
                const high = Math.max(...prices);
                const stock = p.variants.reduce((sum, v) => sum + v.inventory, 0);
                return (
                  <TableRow key={p.id}>
                    <TableCell>
                      <Link
                        href={`${root}/${encodeURIComponent(p.id)}`}
                        className="font-medium underline-offset-4 hover:underline"
                      >
                        {p.title}
                      </Link>
                      <div className="text-muted-foreground font-mono text-xs break-all">{p.handle}</div>
                      {/* on a phone the variant and stock columns are hidden: their figures go here */}
                      <div className="text-muted-foreground text-xs sm:hidden">
                        {p.variants.length === 1
                          ? "1 variant"
                          : `${formatCount(p.variants.length, locale)} variants`}
                        {` · ${formatCount(stock, locale)} in stock`}
                      </div>
                    </TableCell>
                    <TableCell className="hidden text-right tabular-nums sm:table-cell">
                      {formatCount(p.variants.length, locale)}
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {prices.length === 0 ? "—" : formatMoneyRange(low, high, store.currency, locale)}
                    </TableCell>
                    <TableCell className="hidden text-right tabular-nums sm:table-cell">
                      {formatCount(stock, locale)}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
        {list.pageCount > 1 ? (
          <nav aria-label="Pages" className="flex flex-wrap items-center gap-3 text-sm">
            {list.page > 1 ? (
              <Link href={href(list.page - 1)} className="underline underline-offset-4">
                Previous page
              </Link>
            ) : null}
            <span>
              Page {list.page} of {list.pageCount}
            </span>
            {list.page < list.pageCount ? (
              <Link href={href(list.page + 1)} className="underline underline-offset-4">
                Next page
              </Link>
            ) : null}
          </nav>
        ) : null}
      </div>
    </PageShell>
  );
}
