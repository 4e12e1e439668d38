"use client";

import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";

// How an agent connects, one tab per way in: an MCP host, a plain HTTP client speaking UCP REST, or the bridge
// (one MCP server that shops every store). Each shows the address to use and the first call.

const Code = ({ children }: { children: string }) => (
  // focusable: keyboard users can scroll a long line sideways
  <pre tabIndex={0} className="bg-muted overflow-x-auto rounded-lg border p-4 text-xs leading-relaxed">
    <code>{children}</code>
  </pre>
);

export function ConnectTabs({ baseUrl }: { baseUrl: string }) {
  return (
    <Tabs defaultValue="mcp">
      <TabsList aria-label="Ways to connect">
        <TabsTrigger value="mcp">MCP</TabsTrigger>
        <TabsTrigger value="rest">REST</TabsTrigger>
        <TabsTrigger value="account">Buyer account</TabsTrigger>
      </TabsList>
      <TabsContent value="mcp" className="grid gap-3 text-sm">
        <p>
          Point any MCP host at the global catalog, or at one store. Search needs no key; carts, checkout and
          payment need a platform API key.
        </p>
        <Code>{`{
  "mcpServers": {
    "agent-commerce": { "url": "${baseUrl}/mcp" }
  }
}`}</Code>
      </TabsContent>
      <TabsContent value="rest" className="grid gap-3 text-sm">
        <p>
          Speak UCP over HTTP: every request names its agent profile in <code>UCP-Agent</code> and carries a{" "}
          <code>Request-Id</code>.
        </p>
        <Code>{`curl -X POST ${baseUrl}/catalog/search \\
  -H 'content-type: application/json' \\
  -H 'request-id: 8f0c…' \\
  -H 'ucp-agent: profile="${baseUrl}/demo/agent/.well-known/ucp"' \\
  -d '{"query":"rain jacket"}'`}</Code>
      </TabsContent>
      <TabsContent value="account" className="grid gap-3 text-sm">
        <p>
          To act for a buyer, the agent asks for consent with OAuth 2.1 (PKCE, a client metadata document as
          its client id). The buyer signs in with a Sui wallet, sees who is asking and what for, and can
          revoke the agent at any time under Linked agents.
        </p>
        <Code>{`${baseUrl}/.well-known/oauth-authorization-server
${baseUrl}/account/mcp   (bearer token, scope purchase:complete)`}</Code>
      </TabsContent>
    </Tabs>
  );
}
