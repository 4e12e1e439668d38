import { KeyRound } from "lucide-react";
import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { operatorListKeys } from "@/lib/accounts/operator";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";

import { operatorRevokeKeyAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Operator — Merchant admin", robots: { index: false } };

const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never");

export default async function OperatorPage() {
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in?next=/admin/operator");
  if (!account.isOperator) notFound();
  const keys = await operatorListKeys(account);
  return (
    <PageShell title="Operator" description="The service as a whole: every developer's platform keys.">
      <section aria-labelledby="keys-heading" className="grid gap-3">
        <h2 id="keys-heading" className="text-xl font-semibold">
          Platform keys
        </h2>
        <p className="text-muted-foreground text-sm">
          A platform key may complete purchases in every store. Revoking one takes effect on the next request.
        </p>
        {keys.length === 0 ? (
          <EmptyState icon={<KeyRound />} title="No platform key yet">
            Developers create theirs at /developers; the CLI makes one with create-api-key.
          </EmptyState>
        ) : (
          <Table aria-label="Every platform key">
            <TableHeader>
              <TableRow>
                <TableHead>Name</TableHead>
                <TableHead>Developer</TableHead>
                <TableHead className="hidden md:table-cell">Permissions</TableHead>
                <TableHead className="hidden md:table-cell">Last used</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {keys.map((k) => (
                <TableRow key={k.id}>
                  <TableCell className="font-medium">
                    {k.name}
                    <code className="text-muted-foreground block text-xs font-normal">{`acs_${k.prefix}_…`}</code>
                  </TableCell>
                  <TableCell className="text-xs break-all">
                    {k.owner ? `${k.owner.name} (${k.owner.email})` : "made with the CLI"}
                  </TableCell>
                  <TableCell className="hidden text-xs md:table-cell">
                    {k.permissions.join(", ") || "none"}
                  </TableCell>
                  <TableCell className="hidden text-xs whitespace-nowrap md:table-cell">
                    {when(k.lastUsedAt)}
                  </TableCell>
                  <TableCell>
                    {k.revokedAt ? (
                      <Badge tone="danger">Revoked</Badge>
                    ) : (
                      <Badge tone="success">Active</Badge>
                    )}
                  </TableCell>
                  <TableCell>
                    {k.revokedAt ? null : (
                      <form action={operatorRevokeKeyAction}>
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
        )}
      </section>
    </PageShell>
  );
}
