import { Users } from "lucide-react";
import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import { InviteMemberForm, RemoveMemberForm, RevokeInvitationForm } from "@/components/admin/team-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { LocalTime } from "@/components/ui/local-time";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { storeForAccount } from "@/lib/accounts/store-access";
import { listOpenInvitations } from "@/lib/accounts/store-invitations";
import { listStoreTeam } from "@/lib/accounts/store-team";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

import { inviteMemberAction, removeMemberAction, revokeInvitationAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Team — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

const ROLE_TEXT = {
  owner: "Everything, including payment rails, keys, refunds and the team",
  staff: "Day-to-day work: catalog and orders",
} as const;

export default async function TeamPage({ params }: Props) {
  const account = await getMerchantSession();
  const { store_slug } = await params;
  if (!account) redirect(`/admin/sign-in?next=/admin/stores/${encodeURIComponent(store_slug)}/team`);
  let access;
  try {
    access = await storeForAccount(account, store_slug, "staff");
  } catch (thrown) {
    if (toAppError(thrown).code === "store_not_found") notFound();
    throw thrown;
  }
  const { store, role } = access;
  const team = await listStoreTeam(account, store.slug);
  const invitations = await listOpenInvitations(account, store.slug);
  const mayChange = role !== "staff";
  return (
    <PageShell title="Team" description={`Who runs ${store.name} from this admin.`}>
      <div className="grid gap-6">
        {mayChange ? (
          <Card>
            <CardHeader>
              <CardTitle>Invite someone</CardTitle>
              <CardDescription>
                Owners: {ROLE_TEXT.owner.toLowerCase()}. Staff: {ROLE_TEXT.staff.toLowerCase()}.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <InviteMemberForm action={inviteMemberAction.bind(null, store.slug)} />
            </CardContent>
          </Card>
        ) : (
          <p className="text-muted-foreground text-sm">Only an owner of the store changes its team.</p>
        )}
        <section aria-labelledby="team-heading" className="grid gap-3">
          <h2 id="team-heading" className="text-xl font-semibold">
            Members
          </h2>
          {team.length === 0 ? (
            <EmptyState icon={<Users />} title="No members">
              The service operator runs this store.
            </EmptyState>
          ) : (
            <Table aria-label="Members of the store">
              <TableHeader>
                <TableRow>
                  <TableHead>Name</TableHead>
                  <TableHead className="hidden sm:table-cell">Email</TableHead>
                  <TableHead>Role</TableHead>
                  <TableHead>
                    <span className="sr-only">Actions</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {team.map((m) => (
                  <TableRow key={m.accountId}>
                    <TableCell className="font-medium">
                      {m.name}
                      {m.accountId === account.id ? (
                        <span className="text-muted-foreground"> (you)</span>
                      ) : null}
                      <span className="text-muted-foreground block text-xs font-normal break-all sm:hidden">
                        {m.email}
                      </span>
                    </TableCell>
                    <TableCell className="hidden text-xs break-all sm:table-cell">{m.email}</TableCell>
                    <TableCell>
                      <Badge tone={m.role === "owner" ? "info" : "neutral"}>
                        {m.role === "owner" ? "Owner" : "Staff"}
                      </Badge>
                    </TableCell>
                    <TableCell>
                      {mayChange ? (
                        <RemoveMemberForm
                          action={removeMemberAction.bind(null, store.slug)}
                          accountId={m.accountId}
                          name={m.name}
                        />
                      ) : null}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </section>
        {invitations.length > 0 ? (
          <section aria-labelledby="invitations-heading" className="grid gap-3">
            <h2 id="invitations-heading" className="text-xl font-semibold">
              Open invitations
            </h2>
            <Table aria-label="Open invitations">
              <TableHeader>
                <TableRow>
                  <TableHead>Email</TableHead>
                  <TableHead>Role</TableHead>
                  <TableHead className="hidden sm:table-cell">Expires</TableHead>
                  <TableHead>
                    <span className="sr-only">Actions</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {invitations.map((i) => (
                  <TableRow key={i.id}>
                    <TableCell className="text-xs break-all">
                      {i.email}
                      <span className="text-muted-foreground block sm:hidden">
                        Expires <LocalTime at={i.expiresAt} />
                      </span>
                    </TableCell>
                    <TableCell>
                      <Badge tone={i.role === "owner" ? "info" : "neutral"}>
                        {i.role === "owner" ? "Owner" : "Staff"}
                      </Badge>
                    </TableCell>
                    <TableCell className="hidden text-xs sm:table-cell">
                      <LocalTime at={i.expiresAt} />
                    </TableCell>
                    <TableCell>
                      {mayChange ? (
                        <RevokeInvitationForm
                          action={revokeInvitationAction.bind(null, store.slug)}
                          invitationId={i.id}
                          email={i.email}
                        />
                      ) : null}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </section>
        ) : null}
      </div>
    </PageShell>
  );
}
