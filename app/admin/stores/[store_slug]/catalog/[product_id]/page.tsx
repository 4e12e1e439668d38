import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";

import { Notice } from "@/components/admin/form-messages";
import { DeleteProductButton, ProductForm } from "@/components/admin/product-form";
import { PageShell } from "@/components/layout/page-shell";
import { getAdminProduct } from "@/lib/catalog/admin/list-products";
import { formatMajor } from "@/lib/catalog/admin/major-units";
import { toAppError } from "@/lib/core/errors";

import { catalogPageAccess } from "../access";
import { deleteProductAction, saveProductAction } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Product — Merchant admin", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string; product_id: string }>;
  searchParams: Promise<{ saved?: string }>;
};

export default async function ProductPage({ params, searchParams }: Props) {
  const { store_slug, product_id } = await params;
  const { saved } = await searchParams;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}/catalog`;
  const { store } = await catalogPageAccess(store_slug, `${root}/${encodeURIComponent(product_id)}`);
  let product;
  try {
    product = await getAdminProduct(store, product_id);
  } catch (thrown) {
    if (toAppError(thrown).code === "not_found") notFound();
    throw thrown;
  }
  const media = product.media as { url: string; alt_text?: string }[];
  const attributes = product.attributes as { name: string; value: string }[];
  const initial: Record<string, string> = {
    title: product.title,
    handle: product.handle,
    description: product.descriptionText,
    categories: product.categories.join("\n"),
    tags: product.tags.join(", "),
    imagesCount: String(media.length),
    attributesCount: String(attributes.length),
    variantCount: String(product.variants.length),
  };
  media.forEach((m, n) => {
    initial[`images.${n}.url`] = m.url;
    initial[`images.${n}.alt`] = m.alt_text ?? "";
  });
  attributes.forEach((a, n) => {
    initial[`attributes.${n}.name`] = a.name;
    initial[`attributes.${n}.value`] = a.value;
  });
  product.variants.forEach((v, n) => {
    Object.assign(initial, {
      [`variants.${n}.id`]: v.id,
      [`variants.${n}.title`]: v.title,
      [`variants.${n}.sku`]: v.sku ?? "",
      [`variants.${n}.price`]: formatMajor(v.priceMinor, store.currency),
      [`variants.${n}.listPrice`]:
        v.listPriceMinor === null ? "" : formatMajor(v.listPriceMinor, store.currency),
      [`variants.${n}.inventory`]: String(v.inventory),
    });
  });
  return (
    <PageShell
      title={product.title}
      description={`Prices in ${store.currency}.`}
      actions={
        <Link href={root} className="text-sm underline underline-offset-4">
          Back to the catalog
        </Link>
      }
    >
      <div className="grid gap-8">
        {saved ? <Notice>Saved. Agents searching the catalog see the change now.</Notice> : null}
        <ProductForm
          key={product.updatedAt.toISOString()}
          action={saveProductAction.bind(null, store.slug, product.id)}
          currency={store.currency}
          initial={initial}
          submitLabel="Save product"
        />
        <section aria-labelledby="danger" className="grid gap-2 border-t pt-6">
          <h2 id="danger" className="font-semibold">
            Delete
          </h2>
          <p className="text-muted-foreground text-sm">
            Removes the product and its variants from the catalog; past orders keep their lines.
          </p>
          <DeleteProductButton action={deleteProductAction.bind(null, store.slug, product.id)} />
        </section>
      </div>
    </PageShell>
  );
}
