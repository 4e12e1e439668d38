"use client";

import type { UiWalletAccount } from "@mysten/dapp-kit-core";

import type { WalletKit } from "./dapp-kit";

// Connecting the wallet that holds a given account, and noticing when it goes away while the page waits on it.

/** The wallet disconnected (or dropped the account) before it answered: nothing was signed. */
export class WalletDisconnectedError extends Error {
  constructor(wallet: string) {
    super(
      `${wallet} disconnected before it signed, so nothing was charged. Reconnect your wallet and pay again.`,
    );
    this.name = "WalletDisconnectedError";
  }
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Waits (at most `ms`) while the kit restores the last connection or a connect is under way. */
const settled = (kit: WalletKit, ms = 3_000): Promise<void> =>
  new Promise((resolve) => {
    const busy = () => {
      const { status } = kit.stores.$connection.get();
      return status === "reconnecting" || status === "connecting";
    };
    if (!busy()) return resolve();
    const timer = setTimeout(done, ms);
    const stop = kit.stores.$connection.listen(() => {
      if (!busy()) done();
    });
    function done() {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });

/**
 * The connected account `address`, connecting a wallet when needed: the one connected (or auto-connected), then
 * wallets that already share that account, then the others (each asks the buyer).
 * @throws Error when no wallet in this browser holds that account
 */
export const connectAccount = async (kit: WalletKit, address: string): Promise<UiWalletAccount> => {
  await settled(kit);
  const current = kit.stores.$connection.get().account;
  if (current && same(current.address, address)) return current;
  const wallets = [...kit.stores.$wallets.get()].sort(
    (a, b) =>
      Number(b.accounts.some((x) => same(x.address, address))) -
      Number(a.accounts.some((x) => same(x.address, address))),
  );
  for (const wallet of wallets) {
    const shared = wallet.accounts.find((a) => same(a.address, address));
    try {
      await kit.connectWallet(shared ? { wallet, account: shared } : { wallet });
    } catch {
      continue; // declined or not this buyer's wallet: try the next
    }
    const account = kit.stores.$connection.get().wallet?.accounts.find((a) => same(a.address, address));
    if (account) {
      if (!same(kit.stores.$connection.get().account?.address ?? "", address))
        await kit.switchAccount({ account });
      return account;
    }
  }
  throw new Error(`No wallet in this browser holds the account you signed in with (${address})`);
};

/**
 * The wallet's answer to `ask`, unless the wallet disconnects or drops `account` first: then
 * WalletDisconnectedError, also when the wallet's own error came from going away. The watch starts before the
 * wallet is asked: a wallet may go away while it is being asked, before its promise exists.
 */
export const whileConnected = <T>(
  kit: WalletKit,
  account: UiWalletAccount,
  walletName: string,
  ask: () => Promise<T>,
): Promise<T> => {
  const connected = () => same(kit.stores.$connection.get().account?.address ?? "", account.address);
  return new Promise<T>((resolve, reject) => {
    const stop = kit.stores.$connection.listen(() => {
      if (!connected()) {
        stop();
        reject(new WalletDisconnectedError(walletName));
      }
    });
    if (!connected()) {
      stop();
      reject(new WalletDisconnectedError(walletName));
      return;
    }
    ask().then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(connected() ? error : new WalletDisconnectedError(walletName));
      },
    );
  });
};
