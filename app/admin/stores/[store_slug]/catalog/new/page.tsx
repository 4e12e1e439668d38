import type { Metadata } from "next";
import Link from "next/link";

import { ProductForm } from "@/components/admin/product-form";
import { PageShell } from "@/components/layout/page-shell";

import { catalogPageAccess } from "../access";
import { saveProductAction } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New product — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

export default async function NewProductPage({ params }: Props) {
  const { store_slug } = await params;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}/catalog`;
  const { store } = await catalogPageAccess(store_slug, `${root}/new`);
  return (
    <PageShell
      title="Add a product"
      description={`Prices in ${store.currency}.`}
      actions={
        <Link href={root} className="text-sm underline underline-offset-4">
          Back to the catalog
        </Link>
      }
    >
      <ProductForm
        action={saveProductAction.bind(null, store.slug, null)}
        currency={store.currency}
        initial={{ variantCount: "1" }}
        submitLabel="Add product"
      />
    </PageShell>
  );
}
