"use client";

import { createDAppKit, type UiWalletAccount, type WalletInitializer } from "@mysten/dapp-kit-core";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import {
  getWallets,
  StandardConnect,
  StandardEvents,
  SuiSignAndExecuteTransaction,
  SuiSignTransaction,
  SuiSignTransactionBlock,
  type Wallet,
} from "@mysten/wallet-standard";

// The one dApp Kit (@mysten/dapp-kit-core, DECISIONS B14) of the pages that sign: it keeps the Wallet Standard
// registry of the page (a wallet extension that loads after the page is listed the moment it registers), the
// connection, and auto-connects the wallet account the buyer last chose. Pages only ask wallets to SIGN (or, for a
// wallet that cannot sign alone, to sign and execute and hand back the digest); our server builds the bytes,
// executes and verifies. So the kit's Sui clients are never asked anything: transactions reach it as the prepared
// base64 bytes, which it passes to the wallet as they are. The Slush web wallet is off: it fetches metadata from
// Slush's servers and opens their site in a popup, which the pages' CSP does not allow (docs/decisions.md).

/** Our settlement networks as Wallet Standard chains (`sui:<network>`): the sandbox is a local network. */
export const kitNetworkOf = (network: string): KitNetwork =>
  network === "testnet" ? "testnet" : network === "sandbox" ? "localnet" : "mainnet";

const NETWORKS = ["mainnet", "testnet", "localnet"] as const;
type KitNetwork = (typeof NETWORKS)[number];

// never called (see above), but the kit wants one client per network
const FULLNODES: Record<KitNetwork, string> = {
  mainnet: "https://fullnode.mainnet.sui.io:443",
  testnet: "https://fullnode.testnet.sui.io:443",
  localnet: "http://127.0.0.1:9000",
};

const SIGNS = [SuiSignTransaction, SuiSignTransactionBlock] as const;
const adapters = new WeakSet<Wallet>();

/**
 * dApp Kit lists only wallets that can sign a transaction without executing it. A wallet that can only sign and
 * execute is shown through a twin registered here: the same name, icon, accounts and features, plus a
 * `sui:signTransaction` that refuses — the twin's accounts do not list that feature, so the kit never picks it and
 * the pages ask such a wallet to sign and execute instead (`executesOnly`).
 */
const executeOnlyTwin = (wallet: Wallet): Wallet => {
  const twin: Wallet = {
    version: wallet.version,
    name: wallet.name,
    icon: wallet.icon,
    get chains() {
      return wallet.chains;
    },
    get accounts() {
      return wallet.accounts;
    },
    features: {
      ...wallet.features,
      [SuiSignTransaction]: {
        version: "2.0.0",
        signTransaction: () =>
          Promise.reject(new Error(`${wallet.name} cannot sign without executing (sui:signTransaction)`)),
      },
    },
  };
  adapters.add(twin);
  return twin;
};

const needsTwin = (wallet: Wallet): boolean =>
  !adapters.has(wallet) &&
  StandardConnect in wallet.features &&
  StandardEvents in wallet.features &&
  SuiSignAndExecuteTransaction in wallet.features &&
  !SIGNS.some((feature) => feature in wallet.features);

const executeOnlyWallets: WalletInitializer = {
  id: "execute-only-wallets",
  initialize() {
    const registry = getWallets();
    const twins = new Map<Wallet, () => void>();
    const add = (...wallets: readonly Wallet[]) => {
      for (const wallet of wallets.filter(needsTwin)) {
        if (!twins.has(wallet)) twins.set(wallet, registry.register(executeOnlyTwin(wallet)));
      }
    };
    add(...registry.get());
    const offRegister = registry.on("register", add);
    const offUnregister = registry.on("unregister", (...wallets) => {
      for (const wallet of wallets) {
        twins.get(wallet)?.();
        twins.delete(wallet);
      }
    });
    return {
      unregister: () => {
        offRegister();
        offUnregister();
        twins.forEach((unregister) => unregister());
        twins.clear();
      },
    };
  },
};

/** The account can only sign and execute: it executes our bytes itself and answers the digest. */
export const executesOnly = (account: UiWalletAccount): boolean =>
  !SIGNS.some((feature) => account.features.includes(feature)) &&
  account.features.includes(SuiSignAndExecuteTransaction);

const create = () => {
  const kit = createDAppKit({
    networks: [...NETWORKS],
    defaultNetwork: "mainnet",
    createClient: (network) => new SuiGrpcClient({ network, baseUrl: FULLNODES[network as KitNetwork] }),
    slushWalletConfig: null,
    walletInitializers: [executeOnlyWallets],
  });
  // the kit follows the registry and auto-connects while its wallet list is watched: watch it for the page's life
  kit.stores.$wallets.listen(() => undefined);
  return kit;
};

let instance: ReturnType<typeof create> | null = null;

/** The page's dApp Kit, made on first use in the browser (wallets live there only). */
export const walletKit = (): ReturnType<typeof create> => (instance ??= create());

export type WalletKit = ReturnType<typeof walletKit>;

/** The first of our networks the account's wallet says it is on (a sign-in names no network). */
export const networkOfAccount = (account: UiWalletAccount): KitNetwork | undefined =>
  NETWORKS.find((network) => account.chains.includes(`sui:${network}`));
