import Link from "next/link";

import type { PendingAuthorization } from "@/lib/oauth/decide-authorization";
import { describeScope } from "@/lib/oauth/scope-descriptions";

// Who is asking and for what (issue #6 §2): name, logo and URL from the client's metadata document, each scope in
// plain words, and the two answers.

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
    <section aria-label="Authorization request">
      <div className="client">
        {request.logoUri ? (
          // eslint-disable-next-line @next/next/no-img-element -- a remote logo from the client's metadata
          <img src={request.logoUri} alt="" width={48} height={48} referrerPolicy="no-referrer" />
        ) : null}
        <h1>
          <span data-testid="client-name">{request.clientName}</span> wants to act for you
        </h1>
      </div>
      <p>
        Client: <code data-testid="client-id">{request.clientId}</code>
        {request.clientUri ? (
          <>
            {" "}
            —{" "}
            <a href={request.clientUri} rel="noreferrer noopener" target="_blank">
              {request.clientUri}
            </a>
          </>
        ) : null}
      </p>
      <h2>It asks to</h2>
      <ul>
        {request.scopes.map((scope) => (
          <li key={scope}>
            <code>{scope}</code>: {describeScope(scope)}
          </li>
        ))}
      </ul>
      <p>
        Signed in as <code data-testid="buyer-address">{address}</code>. You can unlink this agent at any time
        in <Link href="/account/agents">your linked agents</Link>.
      </p>
      <form action={decide}>
        <input type="hidden" name="request" value={request.id} />
        <button type="submit" name="decision" value="approve">
          Allow
        </button>{" "}
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
      </form>
    </section>
  );
}
