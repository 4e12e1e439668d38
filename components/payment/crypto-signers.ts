"use client";

import { Transaction } from "@mysten/sui/transactions";
import { fromBase64 } from "@mysten/sui/utils";

import { sandboxKeypair } from "@/lib/buyers/sandbox-wallet";

// Who signs on the wallet page. The page asks a wallet only to SIGN: the fully resolved bytes we prepared
// (Wallet Standard `sui:signTransaction`) and the allowance (`sui:signPersonalMessage`); our server executes the
// payment (docs/decisions.md "The crypto wallet page"). Wallets are found through the Wallet Standard events, as
// on the sign-in card; test mode's built-in test wallet is the sandbox buyer's fixed public key, signing right here.

export type PageSigner = {
  label: string;
  address: string;
  /** Signs the transaction bytes (base64) as they are; answers the bytes signed and the signature. */
  signTransaction: (bytes: string) => Promise<{ bytes: string; signature: string }>;
  signPersonalMessage: (message: Uint8Array) => Promise<string>;
};

type StandardAccount = { address: string; chains?: readonly string[] };
type StandardWallet = {
  name: string;
  features: Record<string, unknown>;
  accounts?: readonly StandardAccount[];
};
type ConnectFeature = { connect: () => Promise<{ accounts: readonly StandardAccount[] }> };
type SignTransactionFeature = {
  signTransaction: (input: {
    transaction: { toJSON: () => Promise<string> };
    account: StandardAccount;
    chain: string;
  }) => Promise<{ bytes: string; signature: string }>;
};
type SignMessageFeature = {
  signPersonalMessage: (input: {
    message: Uint8Array;
    account: StandardAccount;
  }) => Promise<{ signature: string }>;
};

export const testWalletSigner = (): PageSigner => {
  const keypair = sandboxKeypair();
  return {
    label: "the test wallet",
    address: keypair.toSuiAddress(),
    signTransaction: async (bytes) => keypair.signTransaction(fromBase64(bytes)),
    signPersonalMessage: async (message) => (await keypair.signPersonalMessage(message)).signature,
  };
};

const discover = (): StandardWallet[] => {
  const found: StandardWallet[] = [];
  const api = {
    register: (...wallets: StandardWallet[]) => {
      found.push(...wallets.filter((w) => "standard:connect" in w.features));
      return () => undefined;
    },
  };
  // Wallet Standard: wallets already loaded answer app-ready
  window.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: api }));
  return found;
};

const CHAINS: Record<string, string> = {
  mainnet: "sui:mainnet",
  testnet: "sui:testnet",
  sandbox: "sui:localnet",
};

/**
 * The installed wallet holding `address` (the one the buyer signed in with), connected.
 * @throws Error when no wallet shares that account
 */
export const browserWalletSigner = async (address: string, network: string): Promise<PageSigner> => {
  const wanted = address.toLowerCase();
  for (const wallet of discover()) {
    const { accounts } = await (wallet.features["standard:connect"] as ConnectFeature).connect();
    const account = accounts.find((a) => a.address.toLowerCase() === wanted);
    if (!account) continue;
    const tx = wallet.features["sui:signTransaction"] as SignTransactionFeature | undefined;
    const message = wallet.features["sui:signPersonalMessage"] as SignMessageFeature | undefined;
    return {
      label: wallet.name,
      address: account.address,
      signTransaction: async (bytes) => {
        if (!tx) throw new Error(`${wallet.name} cannot sign transactions (sui:signTransaction)`);
        const transaction = Transaction.from(bytes);
        return tx.signTransaction({
          transaction: { toJSON: () => transaction.toJSON() },
          account,
          chain: CHAINS[network] ?? "sui:mainnet",
        });
      },
      signPersonalMessage: async (bytes) => {
        if (!message) throw new Error(`${wallet.name} cannot sign messages (sui:signPersonalMessage)`);
        return (await message.signPersonalMessage({ message: bytes, account })).signature;
      },
    };
  }
  throw new Error(`No wallet in this browser holds the account you signed in with (${address})`);
};

export const signerFor = (address: string, network: string, testWallet: boolean): Promise<PageSigner> =>
  testWallet ? Promise.resolve(testWalletSigner()) : browserWalletSigner(address, network);
