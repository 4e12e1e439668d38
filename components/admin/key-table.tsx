import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

// The keys of one owner (a developer's platform keys, a store's merchant keys): never the secret, only its public
// prefix, with permissions, when made and last used, and a revoke button where the viewer may revoke.

export type KeyRow = {
  id: string;
  name: string;
  prefix: string;
  permissions: readonly string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export const keyTime = (date: Date | null) =>
  date ? date.toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never";

export function KeyTable({
  label,
  keys,
  keyPrefix,
  revoke,
}: {
  label: string;
  keys: readonly KeyRow[];
  /** How the kind of key starts: acs (platform), acsm (merchant). */
  keyPrefix: string;
  /** The server action revoking the key whose id it is sent; none when the viewer may not revoke. */
  revoke?: (data: FormData) => Promise<void>;
}) {
  return (
    <Table aria-label={label}>
      <TableHeader>
        <TableRow>
          <TableHead>Name</TableHead>
          <TableHead>Key</TableHead>
          <TableHead>Permissions</TableHead>
          <TableHead>Created</TableHead>
          <TableHead>Last used</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {keys.map((k) => (
          <TableRow key={k.id}>
            <TableCell className="font-medium">{k.name}</TableCell>
            <TableCell>
              <code className="text-xs">{`${keyPrefix}_${k.prefix}_…`}</code>
            </TableCell>
            <TableCell className="text-xs">{k.permissions.join(", ") || "none"}</TableCell>
            <TableCell className="text-xs whitespace-nowrap">{keyTime(k.createdAt)}</TableCell>
            <TableCell className="text-xs whitespace-nowrap">{keyTime(k.lastUsedAt)}</TableCell>
            <TableCell>
              {k.revokedAt ? <Badge tone="danger">Revoked</Badge> : <Badge tone="success">Active</Badge>}
            </TableCell>
            <TableCell>
              {k.revokedAt || !revoke ? null : (
                <form action={revoke}>
                  <input type="hidden" name="id" value={k.id} />
                  <Button type="submit" variant="outline" size="sm" aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </Button>
                </form>
              )}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
