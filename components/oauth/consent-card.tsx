import { ExternalLink, Globe, KeyRound, ShieldCheck } from "lucide-react";
import Link from "next/link";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import type { PendingAuthorization } from "@/lib/oauth/decide-authorization";
import { describeScope, scopeTitle } from "@/lib/oauth/scope-descriptions";

// Who is asking and for what: name, logo and URL from the client's metadata document, the client id
// (a URL the agent controls) and the host the answer goes back to, each scope in plain words, and the two answers.

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

export function ConsentCard({
  request,
  address,
  decide,
}: {
  request: PendingAuthorization;
  address: string;
  decide: (formData: FormData) => Promise<void>;
}) {
  return (
    <Card aria-labelledby="consent-title">
      <CardHeader className="gap-3">
        <div className="flex items-center gap-3">
          {request.logoUri ? (
            // eslint-disable-next-line @next/next/no-img-element -- a remote logo from the client's metadata
            <img
              src={request.logoUri}
              alt=""
              width={48}
              height={48}
              referrerPolicy="no-referrer"
              className="size-12 rounded-lg border object-cover"
            />
          ) : (
            <div
              aria-hidden
              className="bg-accent text-accent-foreground grid size-12 place-items-center rounded-lg"
            >
              <KeyRound className="size-6" />
            </div>
          )}
          <CardTitle as="h1" id="consent-title" className="text-xl sm:text-2xl">
            <span data-testid="client-name">{request.clientName}</span> wants to act for you
          </CardTitle>
        </div>
        <CardDescription>
          Check who is asking before you allow it. Nothing happens until you choose.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <AgentIdentity request={request} />
        <RequestedScopes request={request} />
        <p className="text-muted-foreground text-sm">
          Signed in as{" "}
          <code data-testid="buyer-address" className="text-foreground text-xs break-all">
            {address}
          </code>
          . You can unlink this agent at any time in <Link href="/account/agents">your linked agents</Link>.
        </p>
      </CardContent>
      <CardFooter>
        <form action={decide} className="flex w-full flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <input type="hidden" name="request" value={request.id} />
          <Button type="submit" name="decision" value="deny" variant="outline" size="lg">
            Deny
          </Button>
          <Button type="submit" name="decision" value="approve" size="lg">
            Allow
          </Button>
        </form>
      </CardFooter>
    </Card>
  );
}

/** The agent's identity from its client metadata document, and the host the answer goes back to. */
export function AgentIdentity({ request }: { request: PendingAuthorization }) {
  return (
    <section aria-labelledby="identity-heading" className="grid gap-3">
      <h2 id="identity-heading" className="text-sm font-semibold">
        Who is asking
      </h2>
      <DataList className="bg-muted/50 rounded-lg border p-4">
        <DataItem label="Agent">{request.clientName}</DataItem>
        <DataItem label="Client id">
          <code data-testid="client-id" className="text-xs break-all">
            {request.clientId}
          </code>
        </DataItem>
        {request.clientUri ? (
          <DataItem label="Website">
            <a
              href={request.clientUri}
              rel="noreferrer noopener"
              target="_blank"
              className="inline-flex items-center gap-1 break-all"
            >
              {request.clientUri}
              <ExternalLink aria-hidden className="size-3.5 shrink-0" />
              <span className="sr-only">(opens in a new tab)</span>
            </a>
          </DataItem>
        ) : null}
        <DataItem label="Sends you back to">
          <span className="inline-flex items-center gap-1.5" data-testid="redirect-host">
            <Globe aria-hidden className="text-muted-foreground size-4 shrink-0" />
            <strong className="break-all">{hostOf(request.redirectUri)}</strong>
          </span>
        </DataItem>
      </DataList>
    </section>
  );
}

/** Each requested scope, in plain words. */
export function RequestedScopes({ request }: { request: PendingAuthorization }) {
  return (
    <section aria-labelledby="scopes-heading" className="grid gap-3">
      <h2 id="scopes-heading" className="text-sm font-semibold">
        It asks to
      </h2>
      <ul className="grid gap-3">
        {request.scopes.map((scope) => (
          <li key={scope} className="flex gap-3 rounded-lg border p-3">
            <ShieldCheck aria-hidden className="text-primary mt-0.5 size-5 shrink-0" />
            <div className="grid gap-1">
              <p className="text-sm font-semibold">
                {scopeTitle(scope)} <code className="text-muted-foreground text-xs font-normal">{scope}</code>
              </p>
              <p className="text-sm">{describeScope(scope)}</p>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
