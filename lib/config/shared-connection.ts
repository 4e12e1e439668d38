import type { SqlDriverAdapter, SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";

// One driver adapter per factory, handed to Prisma's client and to the statements sent without it
// (lib/config/sql.ts): on PostgreSQL each connect() of Prisma's pg factory opens a pool of its own, and two pools
// would double the connections an instance holds. Disposed (Prisma's $disconnect ends the pool), it is forgotten,
// and the next connect() opens a new one.

export type SharedConnection<F extends SqlDriverAdapterFactory> = {
  /** The factory to give Prisma's client: its connect() answers the shared adapter. */
  factory: F;
  /** The shared adapter, connected on first use. */
  connect: () => Promise<SqlDriverAdapter>;
};

export const sharedConnection = <F extends SqlDriverAdapterFactory>(factory: F): SharedConnection<F> => {
  let current: Promise<SqlDriverAdapter> | undefined;
  const connect = (): Promise<SqlDriverAdapter> => {
    if (current) return current;
    const connecting = factory.connect().then((adapter) => {
      const dispose = async () => {
        if (current === connecting) current = undefined;
        await adapter.dispose();
      };
      return new Proxy(adapter, {
        get: (target, prop, receiver) => (prop === "dispose" ? dispose : Reflect.get(target, prop, receiver)),
      });
    });
    current = connecting;
    // a failed connect is not kept: the next call tries again
    connecting.catch(() => {
      if (current === connecting) current = undefined;
    });
    return connecting;
  };
  const shared = new Proxy(factory, {
    get(target, prop, receiver) {
      if (prop === "connect") return connect;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });
  return { factory: shared, connect };
};
