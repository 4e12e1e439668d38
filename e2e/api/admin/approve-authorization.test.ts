import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";

import { runAdminProcess } from "../../../scripts/lib/served-app";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { authorize, discover, pendingIdFrom } from "../../helpers/oauth";
import { runAdminCaptured } from "../../helpers/run-admin";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// `npm run admin -- approve-authorization`: test mode's stand-in for the buyer's click on the consent page
// (examples/agent-crypto links itself with it). The sandbox buyer signs in with the public sandbox wallet and the
// request is decided by the consent page's core; outside test mode the command refuses.

let cimd: CimdServer;
before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

test("approve-authorization approves a pending request as the sandbox buyer and prints the redirect with the code", async () => {
  const redirectUri = cimd.url("/approve/callback");
  const clientId = cimd.document("/approve/client.json", {
    client_name: "Approve Agent",
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "none",
  });
  const as = await discover();
  const started = await authorize(as, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "purchase:complete",
    state: "s-1",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  const requestId = pendingIdFrom(started);
  const approved = await runAdminCaptured("approve-authorization", "--request", requestId, "--json");
  assert.equal(approved.code, 0, approved.err);
  const body = JSON.parse(approved.out) as { buyer_address: string; client_id: string; location: string };
  assert.equal(body.buyer_address, SANDBOX_WALLET_ADDRESS);
  assert.equal(body.client_id, clientId);
  const location = new URL(body.location);
  assert.equal(`${location.origin}${location.pathname}`, redirectUri);
  assert.match(location.searchParams.get("code") ?? "", /\S{20,}/);
  assert.equal(location.searchParams.get("state"), "s-1");
  // each request is decided once, here as on the page
  await assert.rejects(
    runAdminCaptured("approve-authorization", "--request", requestId),
    /No pending consent request/,
  );
});

test("approve-authorization refuses outside test mode, naming the consent page", async () => {
  const result = await runAdminProcess(["approve-authorization", "--request", "par_x"], {
    OAUTH_TEST_MODE: "false",
    PGLITE_DIR: "memory://",
    DATABASE_URL: undefined,
  });
  assert.equal(result.code, 1, result.output);
  assert.match(result.output, /works in test mode only/);
  assert.match(result.output, /consent page/);
});
