// The admin CLI's commands (scripts/admin.ts is the process entry point). Each command is a thin adapter over one
// lib/ operation; tests call runAdmin in-process, so the CLI surface is tested on both databases.
import { Console } from "node:console";
import { parseArgs, type ParseArgsConfig } from "node:util";

import { Presets, SingleBar } from "cli-progress";

import { accountByEmail, makeOperator } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";
import { signInBuyer } from "@/lib/buyers/sign-in-buyer";
import { meiliConfigFromEnv, reindex } from "@/lib/catalog/search/meilisearch";
import { reconcileCryptoPayments } from "@/lib/checkout/completion/reconcile-crypto";
import {
  RECONCILE_BATCH,
  RECONCILE_GRACE_MS,
  reconcileCardPayments,
} from "@/lib/checkout/completion/reconcile-payments";
import { getDb } from "@/lib/config/db";
import { getBaseUrl, getEnv, isOAuthTestMode } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";
import { issueCoupon, listCouponPayables, listCoupons } from "@/lib/coupons/issue-coupons";
import { createApiKey } from "@/lib/credentials/create-api-key";
import { listApiKeys, revokeApiKey } from "@/lib/credentials/manage-api-keys";
import { PLATFORM_PERMISSIONS } from "@/lib/credentials/principal";
import { rotateStoreSecrets } from "@/lib/credentials/rotate-store-secrets";
import { purgeExpiredIdempotencyRecords } from "@/lib/idempotency/with-idempotency";
import { listCapturedMail } from "@/lib/mail/send-mail";
import { createOAuthClient, listOAuthClients, revokeOAuthClient } from "@/lib/oauth/create-oauth-client";
import { decideAuthorization, getPendingAuthorization } from "@/lib/oauth/decide-authorization";
import { purgeExpiredOAuthRecords } from "@/lib/oauth/purge-expired";
import { cancelOrder } from "@/lib/orders/cancel-order";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { refundOrder } from "@/lib/orders/refund-order";
import { settlePendingRefunds } from "@/lib/orders/settle-refund";
import { closeOwedBack, listStoreOwedBack, owedAmountsOf } from "@/lib/payments/crypto/owed-back";
import { setCryptoSettings } from "@/lib/stores/crypto-settings";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { makeStoreLive } from "@/lib/stores/make-store-live";
import { rotateDueSigningKeys, rotateSigningKeyOfStore } from "@/lib/stores/rotate-signing-key";
import { setStripeKeys } from "@/lib/stores/set-stripe-keys";
import { setStoreWebhookUrl } from "@/lib/stores/set-webhook-url";
import { listDeliveries } from "@/lib/webhooks/list-deliveries";
import { enableWebhookEndpoint, redeliverWebhook } from "@/lib/webhooks/manage-deliveries";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

const USAGE = `Usage: npm run admin -- <command> [options]    (npm run admin -- <command> --help: that command)

Commands:
  create-api-key --name <name> [--permissions ${PLATFORM_PERMISSIONS.join(",")}]
                 Creates a platform API key (X-API-Key) and prints it ONCE; only its hash is stored.
  list-api-keys  Lists keys (id, name, prefix, permissions, revoked) — never the secrets.
  revoke-api-key --id <key id>
                 Revokes a key; requests with it then get 401 invalid_api_key.
  purge-idempotency
                 Deletes expired idempotency records (also done automatically while serving).
  create-oauth-client --name <name> [--scopes ${PLATFORM_PERMISSIONS.join(",")}]
                 Registers a confidential platform client for the client_credentials grant and prints its
                 client_id and secret ONCE; only the secret's hash is stored.
  list-oauth-clients
                 Lists registered platform OAuth clients — never their secrets.
  revoke-oauth-client --id <client id>
                 Revokes a client; its tokens stop working at once.
  purge-oauth    Deletes expired consent requests, authorization codes (a day after expiry) and refresh tokens.
  approve-authorization --request <consent request id> [--json]
                 Test mode only (OAUTH_TEST_MODE): the sandbox buyer signs in with the public sandbox wallet and
                 approves a pending consent request, as a click on the consent page would; prints the redirect
                 (code, state, iss) for the agent's redirect_uri. Lets an agent script link itself unattended.

  Merchant accounts (sign up at /admin/sign-up):
  grant-store --email <account email> --store <slug> [--role owner|staff]
                 Gives an account a role in a store (default owner); it then sees the store in /admin.
  make-operator --email <account email>
                 Makes an account the service's operator (every store in /admin).
  mail [--to <address>] [--limit <n>] [--json]
                 Mail kept by the local capture (no SMTP_URL): password resets and order confirmations, newest
                 first, with their text (links included).

  Order webhooks (docs/webhooks.md):
  set-webhook-url --store <slug> --url <https URL or "">
                 Sets the store's webhook URL ("" disables webhooks); live stores need https and a public host.
  webhook-log --store <slug> [--limit <n>] [--json]
                 The delivery log: each Webhook-Id, its state and every attempt.
  deliver-webhooks [--store <slug>]
                 Runs one delivery step now (the server does this every second unless WEBHOOK_WORKER=off).
  redeliver-webhook --store <slug> --id <webhook id>
                 Sends a delivery again with a fresh retry schedule (same Webhook-Id and bytes).
  enable-webhook-endpoint --store <slug> --id <endpoint id>
                 Re-enables an endpoint disabled after sustained failure.

  Orders (merchant):
  fulfill-order --store <slug> --order <order id> [--type shipped|in_transit|delivered|…]
                [--carrier <name>] [--tracking-number <n>] [--tracking-url <https URL>] [--description <text>]
                 Appends a fulfilment event (default shipped: every remaining unit); webhooks follow.
  cancel-order --store <slug> --order <order id> [--reason <text>]
                 Cancels an order with no shipped units: restocks it and pays everything back through its rail.
  refund-order --store <slug> --order <order id> [--amount <minor units>] [--reason <text>]
                 Refunds a paid order through its rail, in full (default) or in part; one refund at a time.
  settle-refunds [--store <slug>]
                 Retries refunds left pending by a provider outage or a crash (same idempotency key; the server's
                 worker does this every minute).
  Card payments:
  set-stripe-keys --store <slug> [--secret-key <sk_live_…>] [--webhook-secret <whsec_…>]
                  [--publishable-key <pk_live_…|pk_test_…>]
                 A store's Stripe secret key and webhook signing secret ("" clears): live keys for a live store;
                 test keys put a test-mode store on Stripe's own test mode (without keys: the sandbox PSP).
                 Point the Stripe webhook at {base_url}/s/<slug>/stripe/webhook. The publishable key (public)
                 lets the hosted payment page run Stripe's Payment Element.
  set-crypto --store <slug> [--enabled true|false] [--accepted-coins USDC,SUI] [--payout-address <0x…>]
             [--network mainnet|testnet] [--json]
                 A store's crypto rail (svc.crypto): the coins it accepts, in order of preference (our symbols or
                 full coin types; auto pays stablecoins first in this order), the merchant's Sui payout address
                 ("" clears it while crypto is off) and the network a live store settles on. Test-mode stores settle
                 on the sandbox chain. Prints the settings as the store profile shows them.
  owed-back --store <slug> [--all] [--json]
                 Crypto owed back to buyers (a second or late payment that could not pay, an over-payment, a refund
                 of a crypto order): per record the buyer's address, the coins and amounts, why, and the payment it
                 arrived with. The service holds no keys: send the coins back yourself, then close the record.
  close-owed-back --store <slug> --id <owe_…> --digest <refund transaction digest> [--json]
                 Closes a record with the transaction that paid the buyer back, verified on the store's chain:
                 final, successful, sent after the record was written, the buyer's net receipt in every owed coin
                 at least what is owed; one transaction closes one record.
  make-store-live <slug>
                 Switches a test-mode store to live (real card charges, public https agents and webhooks only)
                 once its enabled rails are configured: a card store needs its Stripe secret and publishable
                 keys, a crypto store its Sui payout address. Refuses, naming what is missing, otherwise.
  reconcile-payments [--store <slug>] [--grace-seconds <n>] [--limit <n>] [--json]
                 Runs one payment reconciliation sweep now (the server does this every 60 s). Card: payments whose
                 PaymentIntent may be ahead of us (untouched for ${RECONCILE_GRACE_MS / 1000} s by default) are read from Stripe; a
                 succeeded one gets its order (never a second charge), a decline is recorded. Crypto: open prepared
                 payments are looked up on the chain by digest; a landed one gets its order or is recorded as owed
                 back. Prints each payment.
  rotate-store-secrets [--json]
                 Re-encrypts every store secret (Stripe secret keys, webhook signing secrets) with the newest key
                 of STORE_SECRETS_KEY (its first), and plain-text rows from before encryption; then the older keys
                 can be removed from STORE_SECRETS_KEY.

  Service coupons (funded by the service, held by buyers; docs/decisions.md "Service coupons"):
  issue-coupon --amount <minor units> --currency <ISO 4217> --expires <ISO date> --to <0x…,0x…>
               [--description <text>] [--json]
                 Issues a coupon worth a fixed amount and grants it once to each buyer (Sui address of an account
                 that signed in). The buyer's agent applies it to a checkout (apply_coupon_to_checkout); the
                 buyer pays the total minus the coupon, and the service owes the merchant the coupon part.
  list-coupons [--json]
                 Every coupon: amount, currency, expiry, how many buyers hold it and how many redeemed it.
  coupon-payables [--store <slug>] [--status open|settled|void] [--json]
                 What the service owes merchants for redeemed coupons (one per order), newest first.

  Store signing keys (UCP signatures; the store profile's signing_keys):
  rotate-signing-key --store <slug> [--json]
                 Mints a new signing key: it is published beside the old one and signs from now on (responses,
                 webhooks); the old key stays published 7 days so receivers still verify, then is deleted.
  rotate-due-signing-keys [--max-age-days <n>] [--json]
                 Runs the server's hourly rotation now: every store key older than n days (default
                 SIGNING_KEY_MAX_AGE_DAYS, 90) is rotated, and keys past their 7-day grace are deleted.
  reindex        Rebuilds the Meilisearch catalog index (MEILISEARCH_URL) from the database with a progress bar:
                 settings, every product document, then the outbox of changes made meanwhile.
`;

/** Every flag of every command (parseArgs, strict: an unknown flag is refused). */
const ADMIN_FLAGS = {
  name: { type: "string" },
  permissions: { type: "string" },
  scopes: { type: "string" },
  id: { type: "string" },
  store: { type: "string" },
  url: { type: "string" },
  limit: { type: "string" },
  order: { type: "string" },
  type: { type: "string" },
  carrier: { type: "string" },
  "tracking-number": { type: "string" },
  "tracking-url": { type: "string" },
  description: { type: "string" },
  amount: { type: "string" },
  reason: { type: "string" },
  json: { type: "boolean", default: false },
  "secret-key": { type: "string" },
  "webhook-secret": { type: "string" },
  "publishable-key": { type: "string" },
  enabled: { type: "string" },
  "accepted-coins": { type: "string" },
  "payout-address": { type: "string" },
  network: { type: "string" },
  to: { type: "string" },
  email: { type: "string" },
  role: { type: "string" },
  "grace-seconds": { type: "string" },
  "max-age-days": { type: "string" },
  all: { type: "boolean", default: false },
  digest: { type: "string" },
  request: { type: "string" },
  currency: { type: "string" },
  expires: { type: "string" },
  status: { type: "string" },
} as const satisfies ParseArgsConfig["options"];

const HELP = new Set(["help", "--help", "-h"]);

/** The usage lines of one command: its entry in USAGE up to the next command or section. */
const usageOf = (command: string): string | null => {
  const lines = USAGE.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^  ${command}(\\s|$)`).test(l));
  if (start === -1) return null;
  const end = lines.findIndex((l, i) => i > start && /^  \S/.test(l));
  return lines.slice(start, end === -1 ? undefined : end).join("\n");
};

/** Where a command writes: the terminal, or the admin socket of a running server (admin-socket.ts). */
export type AdminIo = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/** The flag an input field comes from (`tracking_number`, `trackingNumber` → `--tracking-number`), if there is one. */
const flagOf = (field: string): string | null => {
  const name = field.replace(/_/g, "-").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return Object.hasOwn(ADMIN_FLAGS, name) ? `--${name}` : null;
};

/**
 * A validation message in the words of the command line: the operation's input path becomes the flag it came
 * from (`$.name: name is required` → `--name is required`; `$.permissions[0]: …` → `--permissions: …`).
 */
const inFlagTerms = (message: string): string => {
  const match = /^\$\.([A-Za-z_][A-Za-z0-9_]*)\S*: (.*)$/s.exec(message);
  const flag = match?.[1] ? flagOf(match[1]) : null;
  if (!match?.[1] || match[2] === undefined || !flag) return message;
  const [, field, text] = match;
  // zod messages that name the field ("name is required") read as the flag itself
  return text.startsWith(`${field} `) ? `${flag}${text.slice(field.length)}` : `${flag}: ${text}`;
};

/** The one-line message of a failed command (domain errors as they are; unexpected ones with their own text). */
export const adminErrorMessage = (thrown: unknown): string => {
  const error = toAppError(thrown);
  if (error.code === "internal_error" && thrown instanceof Error) return thrown.message;
  return error.code === "invalid_request" ? inFlagTerms(error.message) : error.message;
};

/**
 * Runs one admin command, writing to `io`; returns the process exit code (thrown errors are the caller's to
 * print, with adminErrorMessage).
 */
export const runAdmin = async (
  argv: string[],
  io: AdminIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  const out = new Console({ stdout: io.stdout, stderr: io.stderr, colorMode: false });
  const [command, ...args] = argv;
  if (command === undefined || HELP.has(command)) {
    out.log(USAGE);
    return 0;
  }
  if (args.some((a) => HELP.has(a))) {
    const usage = usageOf(command);
    out.log(usage ? `Usage: npm run admin -- ${usage.trimStart()}` : USAGE);
    return usage ? 0 : 2;
  }
  // make-store-live takes the slug as its one positional argument (`make-store-live <slug>`), or --store.
  const positional =
    command === "make-store-live" && args[0] && !args[0].startsWith("-") ? args[0] : undefined;
  const rest = positional === undefined ? args : args.slice(1);
  const { values } = parseArgs({ args: rest, options: ADMIN_FLAGS, strict: true });
  switch (command) {
    case "rotate-signing-key": {
      if (!values.store) throw new Error("--store is required");
      const rotation = await rotateSigningKeyOfStore(values.store);
      if (values.json) out.log(JSON.stringify({ store: values.store, ...rotation }));
      else {
        out.log(`Store ${values.store} now signs with ${rotation.kid}.`);
        if (rotation.retired.length > 0) {
          out.log(`Retired (published 7 more days, then deleted): ${rotation.retired.join(", ")}`);
        }
      }
      return 0;
    }
    case "rotate-due-signing-keys": {
      const maxAgeDays =
        values["max-age-days"] === undefined
          ? getEnv().SIGNING_KEY_MAX_AGE_DAYS
          : Number(values["max-age-days"]);
      if (!Number.isInteger(maxAgeDays) || maxAgeDays < 1) {
        throw new Error("--max-age-days must be a whole number of days ≥ 1");
      }
      const result = await rotateDueSigningKeys({ maxAgeDays });
      if (values.json) out.log(JSON.stringify(result));
      else {
        for (const r of result.rotated) out.log(`Store ${r.storeId}: ${r.retired.join(", ")} → ${r.kid}`);
        out.log(`${result.rotated.length} key(s) rotated, ${result.dropped} past their grace deleted`);
      }
      return 0;
    }
    case "create-api-key": {
      const permissions = (values.permissions ?? "")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const created = await createApiKey({ name: values.name ?? "", permissions: permissions as never[] });
      if (values.json) {
        out.log(
          JSON.stringify({
            id: created.id,
            name: created.name,
            permissions: created.permissions,
            key: created.key,
          }),
        );
      } else {
        out.log(`Created platform key ${created.id} "${created.name}"`);
        out.log(`Permissions: ${created.permissions.join(", ") || "(none)"}`);
        out.log(`\n  X-API-Key: ${created.key}\n`);
        out.log("Store it now: it is shown only once (only its SHA-256 hash is kept).");
      }
      return 0;
    }
    case "list-api-keys": {
      const keys = await listApiKeys();
      if (values.json) out.log(JSON.stringify(keys));
      else if (keys.length === 0) out.log("No platform keys.");
      else
        out.table(
          keys.map((k) => ({
            id: k.id,
            name: k.name,
            prefix: `acs_${k.prefix}_…`,
            permissions: k.permissions.join(","),
            revoked: k.revokedAt ? k.revokedAt.toISOString() : "",
          })),
        );
      return 0;
    }
    case "revoke-api-key": {
      if (!values.id) throw new Error("--id is required");
      const key = await revokeApiKey(values.id);
      out.log(`Revoked ${key.id} "${key.name}" at ${key.revokedAt?.toISOString()}`);
      return 0;
    }
    case "purge-idempotency": {
      out.log(`Deleted ${await purgeExpiredIdempotencyRecords()} expired idempotency records`);
      return 0;
    }
    case "create-oauth-client": {
      const scopes = (values.scopes ?? "")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const created = await createOAuthClient({ name: values.name ?? "", scopes: scopes as never[] });
      if (values.json) out.log(JSON.stringify(created));
      else {
        out.log(`Created OAuth client "${created.name}" (client_credentials)`);
        out.log(`Scopes: ${created.scopes.join(" ") || "(none)"}`);
        out.log(`\n  client_id:     ${created.clientId}\n  client_secret: ${created.clientSecret}\n`);
        out.log("Store the secret now: it is shown only once (only its SHA-256 hash is kept).");
      }
      return 0;
    }
    case "list-oauth-clients": {
      const clients = await listOAuthClients();
      if (values.json) out.log(JSON.stringify(clients));
      else if (clients.length === 0) out.log("No OAuth clients.");
      else
        out.table(
          clients.map((c) => ({
            client_id: c.clientId,
            name: c.name,
            scopes: c.scopes.join(" "),
            revoked: c.revokedAt ? c.revokedAt.toISOString() : "",
          })),
        );
      return 0;
    }
    case "revoke-oauth-client": {
      if (!values.id) throw new Error("--id is required");
      const client = await revokeOAuthClient(values.id);
      out.log(`Revoked ${client.clientId} "${client.name}" at ${client.revokedAt?.toISOString()}`);
      return 0;
    }
    case "purge-oauth": {
      const counts = await purgeExpiredOAuthRecords();
      out.log(
        `Deleted ${counts.pendingAuthorizations} consent requests, ${counts.authorizationCodes} codes, ${counts.refreshTokens} refresh tokens`,
      );
      return 0;
    }
    case "approve-authorization": {
      // the sandbox wallet is a public key: signing in as it is a demo convenience, never a real buyer's consent
      if (!isOAuthTestMode()) {
        throw new Error(
          "approve-authorization works in test mode only (OAUTH_TEST_MODE): it signs in the public sandbox wallet. " +
            "Outside test mode the buyer approves the agent on the consent page, signed in with their own wallet.",
        );
      }
      if (!values.request) throw new Error("--request is required (the request= of the consent page's URL)");
      const pending = await getPendingAuthorization(values.request);
      if (!pending)
        throw new Error(`No pending consent request ${values.request} (unknown, expired or answered)`);
      // the same core as the consent page: the wallet sign-in's account, then the buyer's "Allow"
      const buyer = await signInBuyer(SANDBOX_WALLET_ADDRESS);
      const { location } = await decideAuthorization({
        requestId: pending.id,
        buyerId: buyer.id,
        approve: true,
        baseUrl: getBaseUrl(),
      });
      if (values.json) {
        out.log(JSON.stringify({ buyer_address: buyer.suiAddress, client_id: pending.clientId, location }));
      } else {
        out.log(`The sandbox buyer ${buyer.suiAddress} approved ${pending.clientName} (${pending.clientId})`);
        out.log(`Scopes: ${pending.scopes.join(" ")}`);
        out.log(`Redirect: ${location}`);
      }
      return 0;
    }
    case "set-webhook-url": {
      if (!values.store || values.url === undefined) throw new Error("--store and --url are required");
      const url = await setStoreWebhookUrl(values.store, values.url);
      out.log(url ? `Webhooks of ${values.store} go to ${url}` : `Webhooks of ${values.store} are disabled`);
      return 0;
    }
    case "webhook-log": {
      if (!values.store) throw new Error("--store is required");
      const store = await getStoreOrThrow(values.store);
      const log = await listDeliveries(store.id, { limit: Number(values.limit ?? 50) || 50 });
      if (values.json) out.log(JSON.stringify(log, null, 2));
      else if (log.length === 0) out.log("No deliveries.");
      else
        out.table(
          log.map((d) => ({
            webhook_id: d.webhook_id,
            order: d.order_id,
            seq: d.sequence,
            target: `${d.target} ${d.endpoint.url}${d.endpoint.disabled_at ? " (disabled)" : ""}`,
            state: d.state,
            attempts: d.attempts.length,
            last: d.attempts[0]
              ? `${d.attempts[0].status ?? d.attempts[0].error} ${d.attempts[0].latency_ms} ms`
              : "",
          })),
        );
      return 0;
    }
    case "deliver-webhooks": {
      const storeId = values.store ? (await getStoreOrThrow(values.store)).id : undefined;
      const outcomes = await webhookWorkerStep(new Date(), { storeId });
      out.log(`${outcomes.length} attempt(s): ${outcomes.filter((o) => o.ok).length} delivered`);
      return 0;
    }
    case "fulfill-order": {
      if (!values.store || !values.order) throw new Error("--store and --order are required");
      const order = await recordFulfillmentEvent(values.store, values.order, {
        type: values.type ?? "shipped",
        carrier: values.carrier,
        trackingNumber: values["tracking-number"],
        trackingUrl: values["tracking-url"],
        description: values.description,
      });
      out.log(
        `Order ${order.id} is ${order.status}; ${order.fulfillmentEvents?.length ?? 0} fulfilment event(s)`,
      );
      return 0;
    }
    case "cancel-order":
    case "refund-order": {
      if (!values.store || !values.order) throw new Error("--store and --order are required");
      if (values.amount !== undefined && !/^\d+$/.test(values.amount)) {
        throw new Error("--amount must be a whole number of minor units (e.g. 1250 for 12.50)");
      }
      const order =
        command === "cancel-order"
          ? await cancelOrder(values.store, values.order, { reason: values.reason })
          : await refundOrder(values.store, values.order, {
              amount: values.amount === undefined ? undefined : Number(values.amount),
              reason: values.reason,
            });
      const last = order.adjustments?.at(-1);
      out.log(
        `Order ${order.id} is ${order.status}; ${last?.type ?? "adjustment"} ${last?.id ?? ""} ${last?.status ?? ""}` +
          (last?.refundMinor ? `, ${last.refundMinor} ${order.currency} minor units back to the buyer` : ""),
      );
      return 0;
    }
    case "settle-refunds": {
      const store = values.store ? await getStoreOrThrow(values.store) : null;
      const report = await settlePendingRefunds(store ? { storeId: store.id } : {});
      for (const r of report) {
        out.log(`${r.adjustmentId} (order ${r.orderId}): ${r.status}${r.error ? ` — ${r.error}` : ""}`);
      }
      out.log(`${report.length} pending refund(s) processed`);
      return report.some((r) => r.error) ? 1 : 0;
    }
    case "redeliver-webhook":
    case "enable-webhook-endpoint": {
      if (!values.store || !values.id) throw new Error("--store and --id are required");
      const store = await getStoreOrThrow(values.store);
      if (command === "redeliver-webhook") await redeliverWebhook(values.id, store.id);
      else await enableWebhookEndpoint(values.id, store.id);
      out.log(command === "redeliver-webhook" ? `Queued ${values.id} again` : `Enabled ${values.id}`);
      return 0;
    }
    case "set-stripe-keys": {
      if (!values.store) throw new Error("--store is required");
      await setStripeKeys(values.store, {
        secretKey: values["secret-key"],
        webhookSecret: values["webhook-secret"],
        publishableKey: values["publishable-key"],
      });
      out.log(`Stripe keys of ${values.store} updated`);
      return 0;
    }
    case "grant-store": {
      if (!values.email || !values.store) throw new Error("--email and --store are required");
      const role = values.role ?? "owner";
      if (role !== "owner" && role !== "staff") throw new Error("--role must be owner or staff");
      const account = await accountByEmail(values.email);
      const store = await getStoreOrThrow(values.store);
      await grantStoreRole(account.id, store.id, role);
      out.log(`${account.email} is now ${role} of ${store.slug}`);
      return 0;
    }
    case "make-operator": {
      if (!values.email) throw new Error("--email is required");
      const account = await makeOperator(values.email);
      out.log(`${account.email} is now an operator of this service`);
      return 0;
    }
    case "mail": {
      const limit = Number(values.limit ?? 20);
      if (!Number.isInteger(limit) || limit < 1) throw new Error("--limit must be a positive integer");
      const to = values.to?.trim().toLowerCase();
      const mail = (await listCapturedMail(to ? 500 : limit))
        .filter((m) => !to || m.to === to)
        .slice(0, limit);
      if (values.json) out.log(JSON.stringify(mail));
      else if (mail.length === 0) out.log("No captured mail.");
      else {
        for (const m of mail)
          out.log(`── ${m.createdAt.toISOString()} to ${m.to}: ${m.subject}\n${m.text}\n`);
      }
      return 0;
    }
    case "set-crypto": {
      if (!values.store) throw new Error("--store is required");
      const enabled = values.enabled;
      if (enabled !== undefined && enabled !== "true" && enabled !== "false") {
        throw new Error("--enabled must be true or false");
      }
      const settings = await setCryptoSettings(values.store, {
        ...(enabled !== undefined ? { enabled: enabled === "true" } : {}),
        ...(values["accepted-coins"] !== undefined
          ? {
              accepted_coins: values["accepted-coins"]
                .split(",")
                .map((c) => c.trim())
                .filter(Boolean),
            }
          : {}),
        ...(values["payout-address"] !== undefined ? { payout_address: values["payout-address"] } : {}),
        ...(values.network !== undefined ? { network: values.network } : {}),
      });
      const shown = {
        enabled: settings.enabled,
        network: settings.network,
        live_network: settings.liveNetwork,
        accepted_coins: settings.acceptedCoins.map((c) => ({
          symbol: c.symbol,
          coin_type: c.coinType,
          decimals: c.decimals,
        })),
        payout_address: settings.payoutAddress,
      };
      if (values.json) out.log(JSON.stringify(shown));
      else {
        out.log(`Crypto payments of ${values.store}: ${settings.enabled ? "enabled" : "disabled"}`);
        out.log(
          `  settles on ${settings.network}${settings.network === "sandbox" ? ` (live: ${settings.liveNetwork})` : ""}`,
        );
        out.log(`  accepts ${settings.acceptedCoins.map((c) => c.symbol).join(", ") || "(no coin)"}`);
        out.log(`  pays out to ${settings.payoutAddress ?? "(no address)"}`);
      }
      return 0;
    }
    case "rotate-store-secrets": {
      const report = await rotateStoreSecrets();
      if (values.json) out.log(JSON.stringify(report));
      else {
        out.log(
          `Store secrets re-encrypted with key "${report.keyId}": ${report.resealed} (already current: ${report.current}).`,
        );
      }
      return 0;
    }
    case "owed-back": {
      if (!values.store) throw new Error("--store is required");
      const store = await getStoreOrThrow(values.store);
      const rows = await listStoreOwedBack(await getDb(), store.id, { all: values.all });
      const shown = rows.map((r) => ({
        id: r.id,
        status: r.status,
        checkout_id: r.checkoutId,
        buyer_address: r.buyerAddress,
        payment_digest: r.paymentDigest,
        amounts: owedAmountsOf(r),
        reason: r.reason,
        refund_digest: r.refundDigest,
        created_at: r.createdAt.toISOString(),
      }));
      if (values.json) out.log(JSON.stringify(shown));
      else if (shown.length === 0) out.log(`Nothing ${values.all ? "" : "open "}owed back in ${store.slug}.`);
      else {
        for (const r of shown) {
          const coins = r.amounts
            .map((a) => `${a.amount} ${a.symbol ?? a.coin_type} (base units)`)
            .join(" + ");
          out.log(
            `${r.id} ${r.status}: ${coins} to ${r.buyer_address} — ${r.reason} (checkout ${r.checkout_id}, payment ${r.payment_digest}${r.refund_digest ? `, refunded by ${r.refund_digest}` : ""})`,
          );
        }
      }
      return 0;
    }
    case "close-owed-back": {
      if (!values.store || !values.id || !values.digest) {
        throw new Error("--store, --id and --digest are required");
      }
      const store = await getStoreOrThrow(values.store);
      const closed = await closeOwedBack(await getDb(), store, {
        id: values.id,
        refundDigest: values.digest,
      });
      if (values.json) {
        out.log(JSON.stringify({ id: closed.id, status: closed.status, refund_digest: closed.refundDigest }));
      } else out.log(`${closed.id} closed by ${closed.refundDigest}`);
      return 0;
    }
    case "issue-coupon": {
      if (!values.amount || !/^\d+$/.test(values.amount)) {
        throw new Error("--amount must be a whole number of minor units (e.g. 500 for 5.00)");
      }
      if (!values.currency || !values.expires || !values.to) {
        throw new Error("--currency, --expires and --to are required");
      }
      const issued = await issueCoupon({
        description: values.description ?? `${values.amount} ${values.currency.toUpperCase()} off`,
        amount_minor: Number(values.amount),
        currency: values.currency,
        expires_at: values.expires,
        buyer_addresses: values.to
          .split(",")
          .map((a) => a.trim())
          .filter(Boolean),
      });
      if (values.json) {
        out.log(JSON.stringify({ coupon_id: issued.coupon.id, grants: issued.grants }));
      } else {
        out.log(
          `Coupon ${issued.coupon.id}: ${issued.coupon.amountMinor} ${issued.coupon.currency} minor units off, until ${issued.coupon.expiresAt.toISOString()}`,
        );
        for (const g of issued.grants) out.log(`  ${g.id} → ${g.buyer_address}`);
      }
      return 0;
    }
    case "list-coupons": {
      const coupons = await listCoupons();
      if (values.json) out.log(JSON.stringify(coupons));
      else if (coupons.length === 0) out.log("No coupons.");
      else out.table(coupons);
      return 0;
    }
    case "coupon-payables": {
      const storeId = values.store ? (await getStoreOrThrow(values.store)).id : undefined;
      const payables = await listCouponPayables({ storeId, status: values.status });
      if (values.json) out.log(JSON.stringify(payables));
      else if (payables.length === 0) out.log("No coupon payables.");
      else out.table(payables);
      return 0;
    }
    case "make-store-live": {
      const slug = positional ?? values.store;
      if (!slug) throw new Error("Usage: make-store-live <slug>");
      const { store, alreadyLive } = await makeStoreLive(slug);
      out.log(alreadyLive ? `${store.slug} is already live` : `${store.slug} is live`);
      return 0;
    }
    case "reconcile-payments": {
      const storeId = values.store ? (await getStoreOrThrow(values.store)).id : undefined;
      const graceSeconds = Number(values["grace-seconds"] ?? RECONCILE_GRACE_MS / 1000);
      const limit = Number(values.limit ?? RECONCILE_BATCH);
      if (!Number.isInteger(graceSeconds) || graceSeconds < 0) throw new Error("--grace-seconds must be ≥ 0");
      if (!Number.isInteger(limit) || limit < 1) throw new Error("--limit must be a positive integer");
      const results = [
        ...(await reconcileCardPayments({ storeId, graceMs: graceSeconds * 1000, limit })),
        ...(await reconcileCryptoPayments({ storeId, graceMs: graceSeconds * 1000, limit })),
      ];
      if (values.json) out.log(JSON.stringify(results));
      else {
        for (const r of results) {
          out.log(
            `${r.store} checkout ${r.checkoutId} payment ${r.paymentIntentId ?? "(none recorded)"}: ${r.result}${r.orderId ? ` → order ${r.orderId}` : ""}${r.detail ? ` (${r.detail})` : ""}`,
          );
        }
        const placed = results.filter((r) => r.result === "order_placed").length;
        out.log(`${results.length} payment(s) checked: ${placed} order(s) placed`);
      }
      return results.some((r) => r.result === "error") ? 1 : 0;
    }
    case "reindex": {
      const config = meiliConfigFromEnv();
      const bar = new SingleBar(
        {
          format: "Reindexing |{bar}| {percentage}% | {value}/{total} products | ETA {eta_formatted}",
          stream: io.stderr,
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      let started = false;
      const t0 = performance.now();
      const result = await reindex(config, ({ done, total }) => {
        if (!started) bar.start(total, done);
        started = true;
        bar.update(done);
      });
      bar.stop();
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      out.log(
        `Indexed ${result.done} products into ${config.host} index "${config.indexUid}" in ${seconds} s`,
      );
      return 0;
    }
    default:
      out.error(`Unknown command "${command}" (npm run admin -- <command> --help explains one)\n`);
      out.error(USAGE);
      return 2;
  }
};
