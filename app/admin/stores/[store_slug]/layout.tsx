import type { ReactNode } from "react";

import { MerchantFrame } from "@/components/admin/frame/merchant-frame";

type Props = { children: ReactNode; params: Promise<{ store_slug: string }> };

// Every store page sits in the merchant frame, with the store's sections.
export default async function StoreLayout({ children, params }: Props) {
  const { store_slug } = await params;
  return <MerchantFrame currentSlug={store_slug}>{children}</MerchantFrame>;
}
