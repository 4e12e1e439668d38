"use client";

import { fromBase64 } from "@mysten/sui/utils";

import { connectAccount, whileConnected } from "@/components/wallet/connection";
import { executesOnly, kitNetworkOf, networkOfAccount, walletKit } from "@/components/wallet/dapp-kit";
import { sandboxKeypair } from "@/lib/buyers/sandbox-wallet";

// Who signs on the wallet page. The page asks a wallet to SIGN: the fully resolved bytes we prepared (Wallet
// Standard `sui:signTransaction`) and the allowance (`sui:signPersonalMessage`); our server executes the payment
// (docs/decisions.md "The crypto wallet page"). A wallet that cannot sign without executing executes those same
// bytes itself and hands back the digest, which the server settles as any digest. Wallets come through dApp Kit
// (components/wallet/dapp-kit.ts); test mode's built-in test wallet is the sandbox buyer's fixed key, signing here.

export type PageSigner = {
  label: string;
  address: string;
  /** Signs the transaction bytes (base64) as they are; answers the bytes signed and the signature. */
  signTransaction: (bytes: string) => Promise<{ bytes: string; signature: string }>;
  /**
   * For a wallet that can only sign and execute (null for one that signs): it executes the bytes (base64) as they
   * are and answers the transaction digest.
   */
  executeTransaction: ((bytes: string) => Promise<string>) | null;
  signPersonalMessage: (message: Uint8Array) => Promise<string>;
};

export const testWalletSigner = (): PageSigner => {
  const keypair = sandboxKeypair();
  return {
    label: "the test wallet",
    address: keypair.toSuiAddress(),
    signTransaction: async (bytes) => keypair.signTransaction(fromBase64(bytes)),
    executeTransaction: null,
    signPersonalMessage: async (message) => (await keypair.signPersonalMessage(message)).signature,
  };
};

/**
 * The wallet holding `address` (the one the buyer signed in with), connected through dApp Kit.
 * @throws Error when no wallet in this browser holds that account
 */
export const browserWalletSigner = async (address: string, network: string): Promise<PageSigner> => {
  const kit = walletKit();
  const kitNetwork = kitNetworkOf(network);
  kit.switchNetwork(kitNetwork);
  const account = await connectAccount(kit, address);
  const label = kit.stores.$connection.get().wallet?.name ?? "Your wallet";
  const guard = <T>(ask: () => Promise<T>) => whileConnected(kit, account, label, ask);
  return {
    label,
    address: account.address,
    signTransaction: (bytes) =>
      guard(() => kit.signTransaction({ transaction: bytes, account, network: kitNetwork })),
    executeTransaction: executesOnly(account)
      ? async (bytes) => {
          const result = await guard(() =>
            kit.signAndExecuteTransaction({ transaction: bytes, account, network: kitNetwork }),
          );
          // a failed transaction has a digest too: the server reads the chain and says why it did not pay
          return (result.Transaction ?? result.FailedTransaction).digest;
        }
      : null,
    // a message is signed on no chain in particular: any network the wallet says the account is on will do
    signPersonalMessage: async (message) =>
      (
        await guard(() =>
          kit.signPersonalMessage({ message, account, network: networkOfAccount(account) ?? kitNetwork }),
        )
      ).signature,
  };
};

export const signerFor = (address: string, network: string, testWallet: boolean): Promise<PageSigner> =>
  testWallet ? Promise.resolve(testWalletSigner()) : browserWalletSigner(address, network);

/** What the wallet did with the prepared bytes: signed them (our server executes) or executed them itself. */
export type WalletPayment =
  { kind: "signed"; bytes: string; signature: string } | { kind: "executed"; digest: string };

export const signOrExecute = async (signer: PageSigner, bytes: string): Promise<WalletPayment> =>
  signer.executeTransaction
    ? { kind: "executed", digest: await signer.executeTransaction(bytes) }
    : { kind: "signed", ...(await signer.signTransaction(bytes)) };
