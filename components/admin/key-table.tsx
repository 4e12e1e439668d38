import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TablePhoneDetails,
  TableRow,
} from "@/components/ui/table";

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

/** A key's moment in the reader's own zone, or "never". */
const When = ({ at }: { at: Date | null }) => (at ? <LocalTime at={at} /> : "never");

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
          <TableHead secondary>Key</TableHead>
          <TableHead secondary>Permissions</TableHead>
          <TableHead secondary>Created</TableHead>
          <TableHead secondary>Last used</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {keys.map((k) => (
          <TableRow key={k.id}>
            <TableCell className="font-medium break-words">
              {k.name}
              <TablePhoneDetails>
                <code>{`${keyPrefix}_${k.prefix}_…`}</code>
                <span>{k.permissions.join(", ") || "No permission"}</span>
                <span>
                  Last used <When at={k.lastUsedAt} />
                </span>
              </TablePhoneDetails>
            </TableCell>
            <TableCell secondary>
              <code className="text-xs">{`${keyPrefix}_${k.prefix}_…`}</code>
            </TableCell>
            <TableCell secondary className="text-xs">
              {k.permissions.join(", ") || "none"}
            </TableCell>
            <TableCell secondary className="text-xs whitespace-nowrap">
              <When at={k.createdAt} />
            </TableCell>
            <TableCell secondary className="text-xs whitespace-nowrap">
              <When at={k.lastUsedAt} />
            </TableCell>
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
