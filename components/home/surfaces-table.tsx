// The surfaces an agent can call, mirroring the README's surfaces table.

type Surface = { path: string; transport: string; credential: string };

export function SurfacesTable({ baseUrl, surfaces }: { baseUrl: string; surfaces: readonly Surface[] }) {
  return (
    <table aria-label="Surfaces">
      <thead>
        <tr>
          <th>Path</th>
          <th>Transport</th>
          <th>Credential</th>
        </tr>
      </thead>
      <tbody>
        {surfaces.map((s) => (
          <tr key={s.path + s.transport}>
            <td>
              <code>
                {baseUrl}
                {s.path}
              </code>
            </td>
            <td>{s.transport}</td>
            <td>{s.credential}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
