import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

// The surfaces an agent can call, mirroring the README's surfaces table.

type Surface = { path: string; transport: string; credential: string };

export function SurfacesTable({ baseUrl, surfaces }: { baseUrl: string; surfaces: readonly Surface[] }) {
  return (
    <Table aria-label="Surfaces">
      <TableHeader>
        <TableRow>
          <TableHead scope="col">Path</TableHead>
          <TableHead scope="col">Transport</TableHead>
          <TableHead scope="col">Credential</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {surfaces.map((s) => (
          <TableRow key={s.path + s.transport}>
            <TableCell>
              <code className="text-xs break-all">
                {baseUrl}
                {s.path}
              </code>
            </TableCell>
            <TableCell>{s.transport}</TableCell>
            <TableCell>{s.credential}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
