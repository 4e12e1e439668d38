"use client";

import { Wallet } from "lucide-react";
import { getCsrfToken, signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { sandboxKeypair } from "@/lib/buyers/sandbox-wallet";
import { buildSignInMessage } from "@/lib/buyers/sign-in-message";

// Buyer sign-in with a Sui wallet: the wallet signs a personal message (lib/buyers/sign-in-message.ts) whose nonce is
// next-auth's CSRF token; the server verifies it (lib/buyers/verify-wallet-sign-in.ts). Wallets are found through the
// Wallet Standard events (any installed Sui wallet extension registers itself); test mode also offers the sandbox
// wallet, a fixed public key that signs right here in the page.

type StandardAccount = { address: string };
type StandardWallet = {
  name: string;
  features: Record<string, unknown>;
};
type ConnectFeature = { connect: () => Promise<{ accounts: readonly StandardAccount[] }> };
type SignFeature = {
  signPersonalMessage: (input: {
    message: Uint8Array;
    account: StandardAccount;
  }) => Promise<{ signature: string }>;
};

type Signer = { address: string; sign: (bytes: Uint8Array) => Promise<string> };

const discoverWallets = (): StandardWallet[] => {
  const found: StandardWallet[] = [];
  const api = {
    register: (...wallets: StandardWallet[]) => {
      found.push(
        ...wallets.filter((w) => "sui:signPersonalMessage" in w.features && "standard:connect" in w.features),
      );
      return () => undefined;
    },
  };
  // Wallet Standard: wallets already loaded answer app-ready; later ones dispatch register-wallet
  window.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: api }));
  return found;
};

const walletSigner = async (wallet: StandardWallet): Promise<Signer> => {
  const { accounts } = await (wallet.features["standard:connect"] as ConnectFeature).connect();
  const account = accounts[0];
  if (!account) throw new Error("The wallet shared no account");
  const feature = wallet.features["sui:signPersonalMessage"] as SignFeature;
  return {
    address: account.address,
    sign: async (message) => (await feature.signPersonalMessage({ message, account })).signature,
  };
};

const sandboxSigner = (): Signer => {
  const keypair = sandboxKeypair();
  return {
    address: keypair.toSuiAddress(),
    sign: async (bytes) => (await keypair.signPersonalMessage(bytes)).signature,
  };
};

export function WalletSignIn({ sandbox }: { sandbox: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wallets, setWallets] = useState<StandardWallet[] | null>(null);

  const signInWith = async (makeSigner: () => Promise<Signer> | Signer) => {
    setBusy(true);
    setError(null);
    try {
      const signer = await makeSigner();
      const nonce = await getCsrfToken();
      if (!nonce) throw new Error("Could not start a sign-in session");
      const message = buildSignInMessage({
        domain: window.location.host,
        address: signer.address,
        uri: window.location.origin,
        nonce,
        issuedAt: new Date().toISOString(),
      });
      const signature = await signer.sign(new TextEncoder().encode(message));
      const result = await signIn("sui-wallet", {
        message,
        signature,
        address: signer.address,
        redirect: false,
      });
      if (!result?.ok) throw new Error("The signature was not accepted");
      router.refresh();
    } catch (e) {
      setError(e instanceof Error ? e.message : "Sign-in failed");
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card aria-labelledby="sign-in-title">
      <CardHeader>
        <CardTitle id="sign-in-title" className="flex items-center gap-2">
          <Wallet aria-hidden className="text-primary size-5" />
          Sign in with your Sui wallet
        </CardTitle>
        <CardDescription>
          Your wallet signs a short message to prove the address is yours. It costs nothing and moves no
          funds.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
          <Button disabled={busy} onClick={() => setWallets(discoverWallets())}>
            Connect a wallet
          </Button>
          {sandbox ? (
            <Button
              variant="secondary"
              className="h-auto min-h-10 py-2 whitespace-normal"
              disabled={busy}
              onClick={() => signInWith(sandboxSigner)}
            >
              Sign in with the sandbox wallet (test mode)
            </Button>
          ) : null}
        </div>
        {wallets !== null && wallets.length === 0 ? (
          <p className="text-muted-foreground text-sm" role="status">
            No Sui wallet extension was found in this browser.
          </p>
        ) : null}
        {wallets && wallets.length > 0 ? (
          <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
            {wallets.map((wallet) => (
              <Button
                key={wallet.name}
                variant="outline"
                disabled={busy}
                onClick={() => signInWith(() => walletSigner(wallet))}
              >
                Sign in with {wallet.name}
              </Button>
            ))}
          </div>
        ) : null}
        {error ? (
          <p role="alert" className="text-destructive text-sm font-medium">
            {error}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
