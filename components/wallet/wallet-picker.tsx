"use client";

import type { UiWallet, UiWalletAccount } from "@mysten/dapp-kit-core";
import { useWallets } from "@mysten/dapp-kit-react";
import { Loader2 } from "lucide-react";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "@/components/ui/dialog";

import { walletKit } from "./dapp-kit";

// Choosing a wallet: our own dialog (components/ui/dialog.tsx) on dApp Kit's headless wallet list, so it looks and
// reads like every other page (docs/decisions.md). The list is live: a wallet extension that registers while the
// dialog is open appears in it.

type Props = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The wallet connected: its name and the account it chose. */
  onConnected: (wallet: string, account: UiWalletAccount) => void;
};

export function WalletPicker({ open, onOpenChange, onConnected }: Props) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="wallet-picker">
        <DialogTitle>Connect a Sui wallet</DialogTitle>
        <DialogDescription>
          Choose the wallet to use on this page. It asks you to approve before anything is signed.
        </DialogDescription>
        {open ? <WalletList onConnected={onConnected} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function WalletList({ onConnected }: Pick<Props, "onConnected">) {
  const kit = walletKit();
  const wallets = useWallets({ dAppKit: kit });
  const [connecting, setConnecting] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const connect = async (wallet: UiWallet) => {
    setConnecting(wallet.name);
    setError(null);
    try {
      await kit.connectWallet({ wallet });
      const account = kit.stores.$connection.get().account;
      if (!account) throw new Error(`${wallet.name} shared no account`);
      onConnected(wallet.name, account);
    } catch (e) {
      setError(e instanceof Error ? e.message : `${wallet.name} did not connect`);
    } finally {
      setConnecting(null);
    }
  };

  return (
    <div className="grid gap-3">
      {wallets.length === 0 ? (
        <p role="status" className="bg-muted text-muted-foreground rounded-md p-3 text-sm">
          No Sui wallet was found in this browser yet. Install or unlock a Sui wallet extension: it appears
          here as soon as it loads.
        </p>
      ) : (
        <ul className="grid gap-2" aria-label="Wallets in this browser">
          {wallets.map((wallet) => (
            <li key={wallet.name}>
              <Button
                variant="outline"
                className="h-auto min-h-12 w-full justify-start py-2 whitespace-normal"
                disabled={connecting !== null}
                onClick={() => void connect(wallet)}
              >
                {/* eslint-disable-next-line @next/next/no-img-element -- the wallet's own icon, a data: URI */}
                <img src={wallet.icon} alt="" className="size-6 shrink-0 rounded" />
                <span className="grow text-left">{wallet.name}</span>
                {connecting === wallet.name ? <Loader2 aria-hidden className="animate-spin" /> : null}
              </Button>
            </li>
          ))}
        </ul>
      )}
      {error ? (
        <p role="alert" className="text-destructive text-sm font-medium break-words">
          {error}
        </p>
      ) : null}
    </div>
  );
}
