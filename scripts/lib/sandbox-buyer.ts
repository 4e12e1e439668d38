// The sandbox buyer for scripts that pay with svc.crypto against a served app in test mode (the crypto crash test,
// the checkout bench): a buyer bearer from the real OAuth flow (a loopback client metadata document, PKCE S256; the
// consent given by the admin CLI's approve-authorization, as examples/agent-crypto does), and the sandbox wallet
// that signs and submits the prepared transaction and the buyer's spend allowance.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { SuiGrpcClient } from "@mysten/sui/grpc";
import { fromBase64 } from "@mysten/sui/utils";

import { sandboxKeypair } from "@/lib/buyers/sandbox-wallet";
import { encodeIntentMandate, intentSigningBytes, type IntentPayload } from "@/lib/mandates/intent-mandate";

import { runAdminProcess } from "./served-app";

export type SandboxBuyer = { accessToken: string; clientId: string; address: string };

/**
 * Links a loopback OAuth client to the sandbox buyer of the app at `baseUrl`; `adminEnv` is what the admin CLI
 * needs to reach that app's database (its DATABASE_URL, or the PGLITE_DIR it serves from, with OAUTH_TEST_MODE).
 */
export const linkSandboxBuyer = async (
  baseUrl: string,
  adminEnv: Record<string, string | undefined>,
): Promise<SandboxBuyer> => {
  const server = createServer((req, res) => {
    if (req.url === "/client.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(metadata));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `${origin}/client.json`;
  const redirectUri = `${origin}/callback`;
  const metadata = {
    client_id: clientId,
    client_name: "Sandbox buyer script",
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "none",
  };
  try {
    const verifier = randomBytes(32).toString("base64url");
    const authorize = new URL(`${baseUrl}/ucp/oauth2/authorize`);
    authorize.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "purchase:complete",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    const started = await fetch(authorize, { redirect: "manual" });
    const requestId = new URL(started.headers.get("location") ?? "", baseUrl).searchParams.get("request");
    if (!requestId) throw new Error(`authorize did not park a consent request (${started.status})`);
    const approved = await runAdminProcess(
      ["approve-authorization", "--request", requestId, "--json"],
      adminEnv,
    );
    if (approved.code !== 0) throw new Error(`approve-authorization: ${approved.output}`);
    const { location } = JSON.parse(approved.output.trim().split("\n").at(-1)!) as { location: string };
    const code = new URL(location).searchParams.get("code") ?? "";
    const token = await fetch(`${baseUrl}/ucp/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    const { access_token: accessToken } = (await token.json()) as { access_token?: string };
    if (!accessToken) throw new Error(`token endpoint answered ${token.status}`);
    return { accessToken, clientId, address: sandboxKeypair().toSuiAddress() };
  } finally {
    server.close();
  }
};

/** The sandbox wallet signs prepared bytes as they are and submits them to the Sui sandbox; returns the digest. */
export const signAndSubmit = async (suiUrl: string, bytesBase64: string): Promise<string> => {
  const bytes = fromBase64(bytesBase64);
  const { signature } = await sandboxKeypair().signTransaction(bytes);
  const client = new SuiGrpcClient({ network: "localnet", baseUrl: suiUrl });
  const executed = await client.core.executeTransaction({ transaction: bytes, signatures: [signature] });
  const tx = executed.$kind === "Transaction" ? executed.Transaction : executed.FailedTransaction;
  if (!tx.status.success)
    throw new Error(`the transaction failed on the sandbox: ${JSON.stringify(tx.status)}`);
  return tx.digest;
};

/** The sandbox buyer's spend allowance for `agent` at `merchant` (ap2.intent_mandate), signed with the wallet. */
export const sandboxIntentMandate = async (
  agent: string,
  merchant: string,
  currency: string,
): Promise<string> => {
  const payload: IntentPayload = {
    v: 2,
    id: `intent-${randomUUID()}`,
    buyer_address: sandboxKeypair().toSuiAddress(),
    agent,
    currency,
    limits: {},
    merchants: [merchant],
    expires_at: new Date(Date.now() + 60 * 60_000).toISOString(),
    nonce: randomUUID(),
  };
  const { signature } = await sandboxKeypair().signPersonalMessage(intentSigningBytes(payload));
  return encodeIntentMandate(payload, signature);
};
