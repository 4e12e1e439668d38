import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { CreateStoreForm } from "@/components/admin/create-store-form";
import { MerchantFrame } from "@/components/admin/frame/merchant-frame";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent } from "@/components/ui/card";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { countryOptions } from "@/lib/checkout/countries";
import { currencyOptions } from "@/lib/stores/currencies";

import { createStoreAction } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New store — Merchant admin", robots: { index: false } };

export default async function NewStorePage() {
  if (!(await getMerchantSession())) redirect("/admin/sign-in?next=/admin/stores/new");
  return (
    <MerchantFrame>
      <PageShell
        width="narrow"
        title="Create a store"
        description="It starts in test mode: once it has a product, agents can buy with sandbox cards wherever it ships, and no real money moves."
      >
        <Card>
          <CardContent className="pt-5 sm:pt-6">
            <CreateStoreForm
              action={createStoreAction}
              currencies={currencyOptions()}
              countries={countryOptions()}
            />
          </CardContent>
        </Card>
      </PageShell>
    </MerchantFrame>
  );
}
