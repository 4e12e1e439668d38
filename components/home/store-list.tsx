import type { StoreSummary } from "@/lib/stores/list-stores";

// The stores on this service, each linking to its UCP business profile.

export function StoreList({ stores }: { stores: readonly StoreSummary[] }) {
  if (stores.length === 0) {
    return <p className="empty">No stores yet: run `npm run db:seed` to create the demo stores.</p>;
  }
  return (
    <table aria-label="Stores">
      <thead>
        <tr>
          <th>Store</th>
          <th>Mode</th>
          <th>Rails</th>
          <th>Products</th>
          <th>Profile</th>
        </tr>
      </thead>
      <tbody>
        {stores.map((s) => (
          <tr key={s.slug} data-testid="store-row">
            <td>
              <strong>{s.name}</strong>
              <br />
              <code>{s.slug}</code>
            </td>
            <td>{s.mode}</td>
            <td>
              {s.rails.map((r) => (
                <span className="chip" key={r}>
                  {r}
                </span>
              ))}
            </td>
            <td>{s.productCount.toLocaleString("en-US")}</td>
            <td>
              <a href={`/s/${s.slug}/.well-known/ucp`}>/s/{s.slug}/.well-known/ucp</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
