import assert from "node:assert/strict";
import { test } from "node:test";

import type { SqlDriverAdapter, SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";

import { sharedConnection } from "./shared-connection";

/** A factory counting its connections and disposals; `failFirst` makes the first connect fail. */
const countingFactory = ({ failFirst = false } = {}) => {
  const made = { connects: 0, disposed: 0 };
  const factory = {
    provider: "postgres",
    adapterName: "counting",
    connect: async () => {
      made.connects += 1;
      if (failFirst && made.connects === 1) throw new Error("refused");
      return {
        n: made.connects,
        dispose: async () => {
          made.disposed += 1;
        },
      } as unknown as SqlDriverAdapter;
    },
  } as unknown as SqlDriverAdapterFactory;
  return { factory, made };
};

const numberOf = (adapter: SqlDriverAdapter) => (adapter as unknown as { n: number }).n;

test("the client's connect() and the direct statements' get one adapter: one connection, one pool", async () => {
  const { factory, made } = countingFactory();
  const shared = sharedConnection(factory);
  const [a, b, c] = await Promise.all([shared.factory.connect(), shared.connect(), shared.connect()]);
  assert.equal(made.connects, 1);
  assert.equal(numberOf(a), 1);
  assert.equal(a, b);
  assert.equal(b, c);
  assert.equal(shared.factory.adapterName, "counting");
});

test("once disposed (Prisma's $disconnect), the next connect() opens a new one; disposing reaches the adapter", async () => {
  const { factory, made } = countingFactory();
  const shared = sharedConnection(factory);
  const first = await shared.connect();
  await first.dispose();
  assert.equal(made.disposed, 1);
  const second = await shared.factory.connect();
  assert.equal(numberOf(second), 2);
  assert.equal(await shared.connect(), second);
});

test("a failed connect is not kept: the next call connects again", async () => {
  const { factory, made } = countingFactory({ failFirst: true });
  const shared = sharedConnection(factory);
  await assert.rejects(shared.connect(), /refused/);
  assert.equal(numberOf(await shared.connect()), 2);
  assert.equal(made.connects, 2);
});
