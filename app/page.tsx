import { Bot, CreditCard, ShieldCheck } from "lucide-react";

import { AreaLinks } from "@/components/home/area-links";
import { ConnectTabs } from "@/components/home/connect-tabs";
import { StoreList } from "@/components/home/store-list";
import { SurfacesTable } from "@/components/home/surfaces-table";
import { PageShell } from "@/components/layout/page-shell";
import { getBaseUrl } from "@/lib/config/env";
import { listStores } from "@/lib/stores/list-stores";
import { SURFACES } from "@/lib/surfaces";
import { UCP_VERSION } from "@/lib/ucp/version";

// Reads the database on every request: never prerendered at build time (the embedded DB is not open then).
export const dynamic = "force-dynamic";

const POINTS = [
  {
    Icon: Bot,
    title: "Agents shop for you",
    text: "Your AI agent searches every store, fills carts and checks out — over MCP or REST.",
  },
  {
    Icon: ShieldCheck,
    title: "You stay in control",
    text: "An agent acts for you only after you approve it, and you can unlink it at any time.",
  },
  {
    Icon: CreditCard,
    title: "Pay by card or crypto",
    text: "Card payments through Stripe, with 3-D Secure when your bank asks; crypto on Sui.",
  },
] as const;

export default async function HomePage() {
  const stores = await listStores();
  const baseUrl = getBaseUrl();
  return (
    <PageShell>
      <section className="grid gap-4 pb-10">
        <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">Agent Commerce Service</h1>
        <p className="text-muted-foreground max-w-3xl text-lg">
          Multi-store commerce for AI agents: find products across every store, fill carts, open checkout
          sessions and pay by card or crypto — speaking UCP <code>{UCP_VERSION}</code> over MCP and REST.
        </p>
        <ul className="mt-4 grid gap-4 sm:grid-cols-3">
          {POINTS.map(({ Icon, title, text }) => (
            <li key={title} className="bg-card rounded-xl border p-5">
              <Icon aria-hidden className="text-primary mb-3 size-6" />
              <p className="font-semibold">{title}</p>
              <p className="text-muted-foreground mt-1 text-sm">{text}</p>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="areas-heading" className="grid gap-4 pb-10">
        <h2 id="areas-heading" className="text-xl font-semibold">
          Merchants and developers
        </h2>
        <AreaLinks />
      </section>
      <section aria-labelledby="stores-heading" className="grid gap-4 pb-10">
        <h2 id="stores-heading" className="text-xl font-semibold">
          Stores
        </h2>
        <StoreList stores={stores} />
      </section>
      <section aria-labelledby="connect-heading" className="grid gap-4 pb-10">
        <h2 id="connect-heading" className="text-xl font-semibold">
          How an agent connects
        </h2>
        <ConnectTabs baseUrl={baseUrl} />
      </section>
      <section aria-labelledby="surfaces-heading" className="grid gap-4">
        <h2 id="surfaces-heading" className="text-xl font-semibold">
          Surfaces
        </h2>
        <SurfacesTable baseUrl={baseUrl} surfaces={SURFACES} />
      </section>
    </PageShell>
  );
}
