import type { ReactNode } from "react";

import { StoreNav } from "@/components/admin/store-nav";

type Props = { children: ReactNode; params: Promise<{ store_slug: string }> };

// Every store page shares the section nav; each page does its own access check (owner or staff).
export default async function StoreLayout({ children, params }: Props) {
  const { store_slug } = await params;
  return (
    <>
      <StoreNav slug={store_slug} />
      {children}
    </>
  );
}
