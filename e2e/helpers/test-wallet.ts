import { bcs } from "@mysten/sui/bcs";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { fromBase64, toBase64 } from "@mysten/sui/utils";
import type { Page } from "@playwright/test";

import { fund, SUI, USDC } from "./sui-sandbox";

// Wallet Standard test wallets for the browser specs, found by the pages through dApp Kit as any extension wallet
// would be. Their keys live in this test process: the page's wallet calls back here (page.exposeFunction) to sign.
// Modes: "signs" (sui:signTransaction, answered by the spec's own e2eSignTransaction), "executes" (only
// sui:signAndExecuteTransaction: it executes on the Sui sandbox itself and hands the page the digest), "drops"
// (it disconnects while the page waits for a signature, and never answers).

export type WalletMode = "drops" | "executes" | "signs";

const N_SUI = 1_000_000_000n;
const keys = new Map<string, Ed25519Keypair>();

/** The key of a test wallet made here, to sign as the spec decides. */
export const walletKey = (address: string): Ed25519Keypair => keys.get(address)!;

/**
 * A test wallet funded on the Sui sandbox at `sandboxUrl` (5,000 USDC, 10 SUI), whose key signs here for the page's
 * Wallet Standard wallet; `e2eExecute` executes on that sandbox.
 */
export const testWallet = async (page: Page, sandboxUrl: string): Promise<Ed25519Keypair> => {
  const keypair = Ed25519Keypair.generate();
  keys.set(keypair.toSuiAddress(), keypair);
  await fund(sandboxUrl, keypair.toSuiAddress(), USDC, [5_000_000_000n]);
  await fund(sandboxUrl, keypair.toSuiAddress(), SUI, [10n * N_SUI]);
  await page.exposeFunction("e2eSignMessage", async (address: string, message: string) =>
    keys.get(address)!.signPersonalMessage(fromBase64(message)),
  );
  // sign and execute on the sandbox, as a wallet that executes itself does; it answers the effects as BCS
  await page.exposeFunction("e2eExecute", async (address: string, bytes: string) => {
    const { signature } = await keys.get(address)!.signTransaction(fromBase64(bytes));
    const client = new SuiGrpcClient({ network: "localnet", baseUrl: sandboxUrl });
    const result = await client.core.executeTransaction({
      transaction: fromBase64(bytes),
      signatures: [signature],
    });
    const digest = (result.Transaction ?? result.FailedTransaction)!.digest;
    const effects = bcs.TransactionEffects.serialize({
      V2: {
        status: { Success: true },
        executedEpoch: "0",
        gasUsed: { computationCost: "0", storageCost: "0", storageRebate: "0", nonRefundableStorageFee: "0" },
        transactionDigest: digest,
        gasObjectIndex: null,
        eventsDigest: null,
        dependencies: [],
        lamportVersion: "0",
        changedObjects: [],
        unchangedConsensusObjects: [],
        auxDataDigest: null,
      },
    }).toBytes();
    return { bytes, signature, digest, effects: toBase64(effects) };
  });
  return keypair;
};

type WalletArgs = { name: string; address: string; publicKey: number[]; mode: WalletMode };

/** In the page: the wallet object, and its registration as @wallet-standard/wallet's registerWallet does it. */
const defineWallet = ({ name, address, publicKey, mode }: WalletArgs) => {
  type Bridge = {
    e2eSignMessage: (a: string, m: string) => Promise<{ bytes: string; signature: string }>;
    e2eExecute: (a: string, b: string) => Promise<object>;
    e2eSignTransaction: (a: string, b: string) => Promise<{ bytes: string; signature: string }>;
  };
  const bridge = window as unknown as Bridge;
  const chains = ["sui:mainnet", "sui:testnet", "sui:localnet"] as const;
  const pay = mode === "executes" ? "sui:signAndExecuteTransaction" : "sui:signTransaction";
  const account = {
    address,
    publicKey: Uint8Array.from(publicKey),
    chains,
    features: ["sui:signPersonalMessage", pay],
  };
  let accounts = [account];
  const listeners = new Set<(change: object) => void>();
  const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
  const wallet = {
    version: "1.0.0",
    name,
    icon: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'><circle cx='4' cy='4' r='4' fill='%234f46e5'/></svg>",
    chains,
    get accounts() {
      return accounts;
    },
    features: {
      "standard:connect": {
        version: "1.0.0",
        connect: async () => {
          accounts = [account];
          return { accounts };
        },
      },
      "standard:events": {
        version: "1.0.0",
        on: (_event: string, listener: (change: object) => void) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      "sui:signPersonalMessage": {
        version: "1.1.0",
        signPersonalMessage: ({ message }: { message: Uint8Array }) =>
          bridge.e2eSignMessage(address, b64(message)),
      },
      ...(mode === "drops"
        ? {
            // the buyer's wallet goes away while the page waits for the signature (it never answers)
            "sui:signTransaction": {
              version: "2.0.0",
              signTransaction: () => {
                accounts = [];
                listeners.forEach((listener) => listener({ accounts }));
                return new Promise(() => undefined);
              },
            },
          }
        : mode === "signs"
          ? {
              // signs as the test process decides (e2eSignTransaction): other bytes, late, or right
              "sui:signTransaction": {
                version: "2.0.0",
                signTransaction: async ({
                  transaction,
                }: {
                  transaction: { toJSON: () => Promise<string> };
                }) => bridge.e2eSignTransaction(address, await transaction.toJSON()),
              },
            }
          : {
              "sui:signAndExecuteTransaction": {
                version: "2.0.0",
                signAndExecuteTransaction: async ({
                  transaction,
                }: {
                  transaction: { toJSON: () => Promise<string> };
                }) => bridge.e2eExecute(address, await transaction.toJSON()),
              },
            }),
    },
  };
  // announce it, and answer an app that starts later
  const register = (api: { register: (w: unknown) => void }) => api.register(wallet);
  window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
  window.addEventListener("wallet-standard:app-ready", (event) =>
    register((event as CustomEvent<{ register: (w: unknown) => void }>).detail),
  );
};

const argsOf = (name: string, keypair: Ed25519Keypair, mode: WalletMode): WalletArgs => ({
  name,
  address: keypair.toSuiAddress(),
  publicKey: Array.from(keypair.getPublicKey().toRawBytes()),
  mode,
});

/** Registers the wallet in the loaded page, the way an extension that loads late does. */
export const registerWallet = (page: Page, name: string, keypair: Ed25519Keypair, mode: WalletMode) =>
  page.evaluate(defineWallet, argsOf(name, keypair, mode));

/** Installs the wallet in every page the tab opens from now on, as an installed extension is. */
export const installWallet = (page: Page, name: string, keypair: Ed25519Keypair, mode: WalletMode) =>
  page.addInitScript(defineWallet, argsOf(name, keypair, mode));
