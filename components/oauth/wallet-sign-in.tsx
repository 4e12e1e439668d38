"use client";

import type { UiWalletAccount } from "@mysten/dapp-kit-core";
import { Wallet } from "lucide-react";
import { getCsrfToken, signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, useSyncExternalStore } from "react";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { whileConnected } from "@/components/wallet/connection";
import { networkOfAccount, walletKit } from "@/components/wallet/dapp-kit";
import { WalletPicker } from "@/components/wallet/wallet-picker";
import { sandboxKeypair } from "@/lib/buyers/sandbox-wallet";
import { buildSignInMessage } from "@/lib/buyers/sign-in-message";

// Buyer sign-in with a Sui wallet: the wallet signs a personal message (lib/buyers/sign-in-message.ts) whose nonce is
// next-auth's CSRF token; the server verifies it (lib/buyers/verify-wallet-sign-in.ts). Wallets come through dApp Kit
// (components/wallet/dapp-kit.ts): any Wallet Standard wallet, whenever it registers, and the one the buyer chose
// last is connected again on its own; test mode also offers the sandbox wallet, a fixed public key that signs right
// here in the page.

type Signer = { address: string; sign: (bytes: Uint8Array) => Promise<string> };

const walletSigner = (wallet: string, account: UiWalletAccount): Signer => {
  const kit = walletKit();
  return {
    address: account.address,
    sign: async (message) =>
      (
        await whileConnected(kit, account, wallet, () =>
          kit.signPersonalMessage({ message, account, network: networkOfAccount(account) }),
        )
      ).signature,
  };
};

const noSubscription = () => () => undefined;

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
  const [picking, setPicking] = useState(false);
  // dApp Kit lives in the browser only: the connected wallet is shown once the page has hydrated
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );

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
          {hydrated ? (
            <ConnectedWallet
              disabled={busy}
              onSignIn={(wallet, account) => signInWith(() => walletSigner(wallet, account))}
            />
          ) : null}
          <Button disabled={busy} onClick={() => setPicking(true)}>
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
        <WalletPicker
          open={picking}
          onOpenChange={setPicking}
          onConnected={(wallet, account) => {
            setPicking(false);
            void signInWith(() => walletSigner(wallet, account));
          }}
        />
        {error ? (
          <p role="alert" className="text-destructive text-sm font-medium">
            {error}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** The wallet dApp Kit has connected (or connected again on its own): sign in with it in one step. */
function ConnectedWallet({
  disabled,
  onSignIn,
}: {
  disabled: boolean;
  onSignIn: (wallet: string, account: UiWalletAccount) => void;
}) {
  // dapp-kit-react's useWalletConnection types its kit argument too narrowly for a kit passed in: the same store
  const { $connection } = walletKit().stores;
  const { wallet, account } = useSyncExternalStore(
    (changed) => $connection.listen(changed),
    () => $connection.get(),
    () => $connection.get(),
  );
  if (!wallet || !account) return null;
  return (
    <Button
      className="h-auto min-h-10 py-2 whitespace-normal"
      disabled={disabled}
      onClick={() => onSignIn(wallet.name, account)}
    >
      Sign in with {wallet.name} ({account.address.slice(0, 6)}…{account.address.slice(-4)})
    </Button>
  );
}
