import "server-only";

import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";

import { authenticateAccount } from "@/lib/accounts/accounts";
import { signInBuyer } from "@/lib/buyers/sign-in-buyer";
import { verifyWalletSignIn } from "@/lib/buyers/verify-wallet-sign-in";
import { getBaseUrl, getEnv, isOAuthTestMode } from "@/lib/config/env";
import { requestSourceOf } from "@/lib/http/rate-limit";
import { getStoredSessionSecret } from "@/lib/oauth/server-keys";
import { withRequestSource } from "@/lib/rate-limit/request-source";

// next-auth (v4, DECISIONS.md A) for web sign-in, with two Credentials providers:
// - "sui-wallet" for buyers: a signed Sui personal message (lib/buyers/verify-wallet-sign-in.ts), whose nonce is
//   next-auth's CSRF token, which next-auth has already checked against its cookie;
// - "merchant-password" for merchants and agent developers: email and password (argon2id, lib/accounts).
// Sessions are JWT cookies (no session table) and carry one identity, buyer or merchant: signing in as one signs
// out the other in that browser. A merchant session issued before the account's last password change is void.

export const WALLET_PROVIDER_ID = "sui-wallet";
export const MERCHANT_PROVIDER_ID = "merchant-password";

export const getAuthOptions = async (): Promise<AuthOptions> => {
  // next-auth v4 reads its public URL from the environment
  process.env.NEXTAUTH_URL ??= `${getBaseUrl()}/api/auth`;
  return {
    secret: getEnv().NEXTAUTH_SECRET ?? (await getStoredSessionSecret()),
    session: { strategy: "jwt", maxAge: 8 * 3600 },
    pages: { signIn: "/account/agents" },
    providers: [
      CredentialsProvider({
        id: WALLET_PROVIDER_ID,
        name: "Sui wallet",
        credentials: {
          message: { label: "Message", type: "text" },
          signature: { label: "Signature", type: "text" },
          address: { label: "Address", type: "text" },
        },
        authorize: async (credentials, req) => {
          const body = (req.body ?? {}) as Record<string, unknown>;
          const nonce = typeof body.csrfToken === "string" ? body.csrfToken : "";
          if (!credentials?.message || !credentials.signature || !credentials.address) return null;
          const address = await verifyWalletSignIn(
            { message: credentials.message, signature: credentials.signature, address: credentials.address },
            { baseUrl: getBaseUrl(), expectedNonce: nonce, testMode: isOAuthTestMode() },
          );
          if (!address) return null;
          const buyer = await signInBuyer(address);
          return { id: buyer.id, name: buyer.suiAddress };
        },
      }),
      CredentialsProvider({
        id: MERCHANT_PROVIDER_ID,
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
        },
        authorize: async (credentials, req) => {
          // next-auth's route is not under the request prelude: count failures against the client address here
          const source = requestSourceOf(
            new Request(getBaseUrl(), { headers: new Headers(req.headers as Record<string, string>) }),
          );
          const account = await withRequestSource(source, () =>
            authenticateAccount({ email: credentials?.email ?? "", password: credentials?.password ?? "" }),
          );
          return account ? { id: account.id, email: account.email, name: account.name } : null;
        },
      }),
    ],
    callbacks: {
      jwt: ({ token, user, account }) => {
        if (!user) return token;
        if (account?.provider === MERCHANT_PROVIDER_ID) {
          return { ...token, sub: user.id, kind: "merchant", address: undefined };
        }
        return { ...token, sub: user.id, kind: "buyer", address: user.name ?? undefined };
      },
      session: ({ session, token }) =>
        token.kind === "merchant"
          ? { ...session, merchantAccountId: token.sub, issuedAt: token.iat }
          : {
              ...session,
              buyerId: token.sub,
              address: typeof token.address === "string" ? token.address : undefined,
            },
    },
  };
};
