import type { ReactNode } from "react";

import { MerchantFrame } from "@/components/admin/frame/merchant-frame";

// A page a signed-in merchant reaches: in the merchant frame, without a store's sections.
export default function FramedLayout({ children }: { children: ReactNode }) {
  return <MerchantFrame>{children}</MerchantFrame>;
}
