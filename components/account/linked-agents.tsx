import type { LinkedAgent } from "@/lib/buyers/consents";
import { describeScope } from "@/lib/oauth/scope-descriptions";

// The consent centre's list (issue #6 §7): every linked agent with its scopes, when granted, when last used, and a
// one-click revoke.

const when = (date: Date | null): string =>
  date ? date.toISOString().replace("T", " ").slice(0, 16) + " UTC" : "never";

export function LinkedAgents({
  agents,
  revoke,
}: {
  agents: LinkedAgent[];
  revoke: (formData: FormData) => Promise<void>;
}) {
  if (agents.length === 0) return <p>No agents are linked to your account.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Agent</th>
          <th>May</th>
          <th>Granted</th>
          <th>Last used</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {agents.map((agent) => (
          <tr key={agent.clientId} data-testid="linked-agent">
            <td>
              <strong>{agent.clientName}</strong>
              <br />
              <code>{agent.clientId}</code>
            </td>
            <td>
              <ul>
                {agent.scopes.map((scope) => (
                  <li key={scope} title={describeScope(scope)}>
                    <code>{scope}</code>
                  </li>
                ))}
              </ul>
            </td>
            <td>{when(agent.grantedAt)}</td>
            <td>{when(agent.lastUsedAt)}</td>
            <td>
              <form action={revoke}>
                <input type="hidden" name="client_id" value={agent.clientId} />
                <button type="submit">Revoke</button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
