import { StoreList } from "@/components/home/store-list";
import { SurfacesTable } from "@/components/home/surfaces-table";
import { getBaseUrl } from "@/lib/config/env";
import { listStores } from "@/lib/stores/list-stores";
import { SURFACES } from "@/lib/surfaces";
import { UCP_VERSION } from "@/lib/ucp/version";

// Reads the database on every request: never prerendered at build time (the embedded DB is not open then).
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const stores = await listStores();
  const baseUrl = getBaseUrl();
  return (
    <main>
      <h1>Agent Commerce Service</h1>
      <p className="lead">
        Multi-store commerce for AI agents: find products across every store, fill carts, open checkout
        sessions and pay by card or crypto — speaking UCP <code>{UCP_VERSION}</code> over MCP and REST.
      </p>
      <h2>Surfaces</h2>
      <SurfacesTable baseUrl={baseUrl} surfaces={SURFACES} />
      <h2>Stores</h2>
      <StoreList stores={stores} />
    </main>
  );
}
