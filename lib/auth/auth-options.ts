import "server-only";

import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";

import { signInBuyer } from "@/lib/buyers/sign-in-buyer";
import { verifyWalletSignIn } from "@/lib/buyers/verify-wallet-sign-in";
import { getBaseUrl, getEnv, isOAuthTestMode } from "@/lib/config/env";
import { getStoredSessionSecret } from "@/lib/oauth/server-keys";

// next-auth (v4, DECISIONS.md A) for buyer web sign-in: one Credentials provider, "sui-wallet", whose credential is
// a signed Sui personal message (lib/buyers/verify-wallet-sign-in.ts). The nonce in the message is next-auth's CSRF
// token, which next-auth has already checked against its cookie. Sessions are JWT cookies (no session table).

export const WALLET_PROVIDER_ID = "sui-wallet";

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
    ],
    callbacks: {
      jwt: ({ token, user }) => (user ? { ...token, sub: user.id, address: user.name ?? undefined } : token),
      session: ({ session, token }) => ({
        ...session,
        buyerId: token.sub,
        address: typeof token.address === "string" ? token.address : undefined,
      }),
    },
  };
};
