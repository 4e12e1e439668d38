import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import {
  AgentRequestsForm,
  ForgetAddressesForm,
  LocationForm,
  RemoveButton,
  ShippingRateForm,
  StoreSettingsForm,
} from "@/components/admin/store-settings-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatMoney } from "@/components/ui/format";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TablePhoneDetails,
  TableRow,
} from "@/components/ui/table";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { countryOptions } from "@/lib/checkout/countries";
import { toAppError } from "@/lib/core/errors";
import { agentRequestPolicyOf } from "@/lib/stores/agent-request-policy";
import { currencyOptions } from "@/lib/stores/currencies";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";
import { taxRateText } from "@/lib/stores/update-store-settings";

import {
  createLocationAction,
  createShippingRateAction,
  deleteStoreItemAction,
  forgetSavedAddressesAction,
  updateAgentRequestsAction,
  updateSettingsAction,
} from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

export default async function StoreSettingsPage({ params }: Props) {
  const account = await getMerchantSession();
  const { store_slug } = await params;
  if (!account) redirect(`/admin/sign-in?next=/admin/stores/${encodeURIComponent(store_slug)}/settings`);
  let access;
  try {
    // staff may read the settings; only owners change them (the actions check again)
    access = await storeForAccount(account, store_slug, "staff");
  } catch (thrown) {
    if (toAppError(thrown).code === "store_not_found") notFound();
    throw thrown;
  }
  const { store, role } = access;
  const canEdit = role !== "staff";
  const rates = await runStoreAdminOp(account, store.slug, "listShippingRates", {});
  const locations = await runStoreAdminOp(account, store.slug, "listLocations", {});
  const locale = await viewerLocale(store.country);
  const countries = countryOptions();
  const money = (minor: number) => formatMoney(minor, store.currency, locale);
  return (
    <PageShell
      title="Settings"
      description={canEdit ? `How ${store.name} sells.` : "Only an owner of the store can change these."}
    >
      <div className="grid gap-6">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Store</CardTitle>
          </CardHeader>
          <CardContent>
            <StoreSettingsForm
              action={updateSettingsAction.bind(null, store.slug)}
              slug={store.slug}
              canEdit={canEdit}
              currencies={currencyOptions()}
              initial={{
                name: store.name,
                currency: store.currency,
                mode: store.mode,
                taxRate: taxRateText(store.taxRateBps),
              }}
            />
          </CardContent>
        </Card>

        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Requests from agents</CardTitle>
            <CardDescription>
              What happens when a buyer&apos;s agent asks to cancel or refund an order (whatever waits for you
              shows on the order&apos;s page, and the agent is told the outcome), and whether the shipping
              addresses agents send are kept for their next checkout here.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <AgentRequestsForm
              action={updateAgentRequestsAction.bind(null, store.slug)}
              canEdit={canEdit}
              currency={store.currency}
              initial={agentRequestPolicyOf(store)}
            />
            {canEdit && store.rememberAddresses ? (
              <section aria-labelledby="forget-addresses" className="mt-6 grid gap-3 border-t pt-6">
                <h3 id="forget-addresses" className="font-semibold">
                  Forget a buyer&apos;s addresses
                </h3>
                <ForgetAddressesForm action={forgetSavedAddressesAction.bind(null, store.slug)} />
              </section>
            ) : null}
          </CardContent>
        </Card>

        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Shipping rates</CardTitle>
            <CardDescription>
              For each destination the most specific rate wins (region, then country, then anywhere).
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-6">
            {rates.length === 0 ? (
              <EmptyState title="No shipping rates yet">
                Without a rate, checkouts that need delivery cannot be completed.
              </EmptyState>
            ) : (
              <Table aria-label="Shipping rates">
                <TableHeader>
                  <TableRow>
                    <TableHead>Rate</TableHead>
                    <TableHead secondary>Destination</TableHead>
                    <TableHead className="text-right">Price</TableHead>
                    <TableHead secondary className="text-right">
                      Free when
                    </TableHead>
                    {canEdit ? (
                      <TableHead>
                        <span className="sr-only">Actions</span>
                      </TableHead>
                    ) : null}
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rates.map((rate) => {
                    const destination = `${rate.country === "*" ? "Anywhere" : rate.country}${rate.region ? ` · ${rate.region}` : ""}`;
                    const free = [
                      ...(rate.freeOverMinor === null ? [] : [`Over ${money(rate.freeOverMinor)}`]),
                      ...(rate.freeForTag === null ? [] : [`Every item tagged “${rate.freeForTag}”`]),
                    ];
                    return (
                      <TableRow key={rate.id}>
                        <TableCell>
                          {rate.title}{" "}
                          <span className="text-muted-foreground font-mono text-xs">{rate.code}</span>
                          <TablePhoneDetails>
                            <span>{destination}</span>
                            {free.map((when) => (
                              <span key={when}>Free: {when}</span>
                            ))}
                          </TablePhoneDetails>
                        </TableCell>
                        <TableCell secondary>{destination}</TableCell>
                        <TableCell className="text-right tabular-nums">{money(rate.priceMinor)}</TableCell>
                        <TableCell secondary className="text-right tabular-nums">
                          {free.length === 0
                            ? "—"
                            : free.map((when) => (
                                <span key={when} className="block">
                                  {when}
                                </span>
                              ))}
                        </TableCell>
                        {canEdit ? (
                          <TableCell>
                            <RemoveButton
                              label={`Remove shipping rate ${rate.title} (${rate.country})`}
                              action={deleteStoreItemAction.bind(null, store.slug, "shippingRate", rate.id)}
                            />
                          </TableCell>
                        ) : null}
                      </TableRow>
                    );
                  })}
                </TableBody>
              </Table>
            )}
            {canEdit ? (
              <section aria-labelledby="add-rate" className="grid gap-3">
                <h3 id="add-rate" className="font-semibold">
                  Add a shipping rate
                </h3>
                <ShippingRateForm
                  action={createShippingRateAction.bind(null, store.slug)}
                  currency={store.currency}
                  countries={countries}
                />
              </section>
            ) : null}
          </CardContent>
        </Card>

        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Locations</CardTitle>
            <CardDescription>Shop fronts and pickup points agents can find near a buyer.</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-6">
            {locations.length === 0 ? (
              <EmptyState title="No locations yet">Add one if buyers can visit or pick up.</EmptyState>
            ) : (
              <ul className="grid gap-3">
                {locations.map((location) => {
                  const address = location.address as Record<string, string>;
                  return (
                    <li
                      key={location.id}
                      className="flex flex-wrap items-start justify-between gap-3 rounded-lg border p-3"
                    >
                      <div className="grid gap-0.5 text-sm">
                        <p className="font-medium">{location.name}</p>
                        <p className="text-muted-foreground">
                          {[
                            address.street_address,
                            address.address_locality,
                            address.address_region,
                            address.postal_code,
                            address.address_country,
                          ]
                            .filter(Boolean)
                            .join(", ")}
                        </p>
                        {location.services.length > 0 ? (
                          <p className="text-muted-foreground">Services: {location.services.join(", ")}</p>
                        ) : null}
                      </div>
                      {canEdit ? (
                        <RemoveButton
                          label={`Remove location ${location.name}`}
                          action={deleteStoreItemAction.bind(null, store.slug, "location", location.id)}
                        />
                      ) : null}
                    </li>
                  );
                })}
              </ul>
            )}
            {canEdit ? (
              <section aria-labelledby="add-location" className="grid gap-3">
                <h3 id="add-location" className="font-semibold">
                  Add a location
                </h3>
                <LocationForm
                  action={createLocationAction.bind(null, store.slug)}
                  countries={countries}
                  country={store.country}
                />
              </section>
            ) : null}
          </CardContent>
        </Card>
      </div>
    </PageShell>
  );
}
