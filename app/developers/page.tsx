import { KeyRound } from "lucide-react";
import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { KeyForm } from "@/components/admin/key-form";
import { KeyTable } from "@/components/admin/key-table";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CodeBlock, CopyableCode } from "@/components/ui/copy-button";
import { DataItem, DataList } from "@/components/ui/data-list";
import { EmptyState } from "@/components/ui/empty-state";
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
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { getBaseUrl, getBridgeUrl } from "@/lib/config/env";
import { listApiKeys } from "@/lib/credentials/manage-api-keys";
import { listKeyCalls } from "@/lib/ops/key-call-log";

import { createDeveloperKey, revokeDeveloperKey } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Developers — Agent Commerce Service", robots: { index: false } };

/** What a platform key may be allowed, as the form offers it, in plain words. */
const DEVELOPER_PERMISSIONS = [
  { value: "purchase:complete", label: "Pay: complete checkouts, which charges the buyer (card or crypto)" },
  { value: "orders:read", label: "Read the orders your agent placed" },
  { value: "orders:request", label: "Ask the store to cancel or refund the orders your agent placed" },
] as const;

export default async function DevelopersPage() {
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in?next=/developers");
  const keys = (await listApiKeys({ accountId: account.id })).reverse();
  const calls = await listKeyCalls(
    keys.map((k) => k.id),
    { limit: 50 },
  );
  const keyName = new Map(keys.map((k) => [k.id, k.name]));
  const base = getBaseUrl();
  const bridge = getBridgeUrl();
  return (
    <PageShell
      title="Developers"
      description="Platform API keys for your agent, and how to connect it to every store of this service."
    >
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Create a platform key</CardTitle>
            <CardDescription>
              Your agent sends it as <code>X-API-Key</code>. It is shown once; only a hash is kept.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <KeyForm
              id="key"
              nameHint="The agent or environment that uses it."
              submitLabel="Create key"
              action={createDeveloperKey}
              permissions={DEVELOPER_PERMISSIONS}
              withoutPermissions="With none, the key can still search every store and build carts and checkouts, but cannot pay or read orders."
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Connect</CardTitle>
            <CardDescription>Test-mode stores take the sandbox card token pm_card_visa.</CardDescription>
          </CardHeader>
          <CardContent className="grid grid-cols-1 gap-3 text-sm">
            <DataList aria-label="Endpoints">
              <DataItem label="REST (UCP)">
                <CopyableCode value={base} what="the REST endpoint" />
              </DataItem>
              <DataItem label="Catalog MCP">
                <CopyableCode value={`${base}/mcp`} what="the catalog MCP endpoint" />
              </DataItem>
              <DataItem label="Bridge MCP">
                <CopyableCode value={`${bridge}/mcp`} what="the bridge's MCP endpoint" />
              </DataItem>
            </DataList>
            <p>REST (UCP): search every store, then shop in one.</p>
            <CodeBlock
              label="Example: search the catalog with curl"
              what="the curl example"
              code={`curl -X POST ${base}/catalog/search \\
  -H 'content-type: application/json' \\
  -H 'X-API-Key: <your key>' \\
  -d '{"query": "rain jacket"}'`}
            />
            <p>
              Raw MCP (Streamable HTTP, UCP tools): the catalog MCP endpoint above, and{" "}
              <code className="break-all">{`${base}/s/<store>/mcp`}</code> per store. Every tool call there
              needs a <code>Request-Id</code> and a <code>UCP-Agent</code> header and a <code>meta</code>{" "}
              object in its arguments (<code>{`meta["ucp-agent"].profile`}</code>, and{" "}
              <code>{`meta["idempotency-key"]`}</code> on calls that change something). A stock MCP client
              (Claude Desktop, Cursor, the MCP Inspector) sends none of these: it connects and lists the
              tools, but its tool calls are refused. Give such a client the bridge instead.
            </p>
            <p>
              The bridge (recommended for stock MCP clients): flat MCP tools over the whole service, no UCP
              headers or <code>meta</code> to send, prices in major units, purchases in one call (
              <code>quote_purchase</code>, <code>confirm_purchase</code>). Hosted at the bridge MCP endpoint
              above, or on your machine over stdio from a clone.
            </p>
            <CodeBlock
              label="Example: an MCP client configuration for the bridge"
              what="the MCP client configuration"
              code={JSON.stringify(
                {
                  mcpServers: {
                    commerce: { type: "http", url: `${bridge}/mcp`, headers: { "X-API-Key": "<your key>" } },
                    "commerce-stdio": {
                      command: "npm",
                      args: [
                        "run",
                        "--silent",
                        "--prefix",
                        "/path/to/agent-commerce-service",
                        "bridge",
                        "--",
                        "--stdio",
                        "--base-url",
                        base,
                      ],
                      env: { API_KEY: "<your key>" },
                    },
                  },
                },
                null,
                2,
              )}
            />
            <p>
              The agent kit and two runnable examples are in the repository (README, “Agent kit and
              examples”); every REST route is described in <a href="/openapi.json">openapi.json</a>.
            </p>
          </CardContent>
        </Card>
      </div>
      <section aria-labelledby="keys-heading" className="mt-8 grid grid-cols-1 gap-3">
        <h2 id="keys-heading" className="text-xl font-semibold">
          Your keys
        </h2>
        {keys.length === 0 ? (
          <EmptyState icon={<KeyRound />} title="No key yet">
            Create one above; your agent can use it at once.
          </EmptyState>
        ) : (
          <KeyTable label="Your platform keys" keys={keys} keyPrefix="acs" revoke={revokeDeveloperKey} />
        )}
      </section>
      <section aria-labelledby="calls-heading" className="mt-8 grid grid-cols-1 gap-3">
        <h2 id="calls-heading" className="text-xl font-semibold">
          Your agent&apos;s calls
        </h2>
        <p className="text-muted-foreground text-sm">
          The latest calls made with your keys (the newest 100 per key are kept): route, answer and the
          Request-Id to quote when you ask for help. No body or credential is recorded.
        </p>
        {calls.length === 0 ? (
          <EmptyState icon={<KeyRound />} title="No call yet">
            Calls appear here a moment after your agent makes them.
          </EmptyState>
        ) : (
          <Table aria-label="Recent calls with your keys">
            <TableHeader>
              <TableRow>
                <TableHead>Call</TableHead>
                <TableHead secondary>Time</TableHead>
                <TableHead secondary>Key</TableHead>
                <TableHead>Status</TableHead>
                <TableHead secondary>Error</TableHead>
                <TableHead secondary>Request-Id</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {calls.map((c, i) => (
                <TableRow key={`${c.requestId ?? ""}-${i}`} data-testid="key-call">
                  <TableCell>
                    <code className="text-xs break-all md:whitespace-nowrap">
                      {c.method} {c.route}
                    </code>
                    <TablePhoneDetails>
                      <span>
                        <LocalTime at={c.at} /> · {keyName.get(c.keyId) ?? "?"}
                      </span>
                      {c.errorCode ? <span>{c.errorCode}</span> : null}
                      {c.requestId ? <code className="break-all">{c.requestId}</code> : null}
                    </TablePhoneDetails>
                  </TableCell>
                  <TableCell secondary className="text-xs whitespace-nowrap">
                    <LocalTime at={c.at} />
                  </TableCell>
                  <TableCell secondary className="text-xs">
                    {keyName.get(c.keyId) ?? "?"}
                  </TableCell>
                  <TableCell>
                    <Badge tone={c.status >= 400 || c.errorCode ? "danger" : "success"}>{c.status}</Badge>
                  </TableCell>
                  <TableCell secondary className="text-xs">
                    {c.errorCode ?? ""}
                  </TableCell>
                  <TableCell secondary>
                    <code className="text-xs break-all">{c.requestId ?? ""}</code>
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
