import assert from "node:assert/strict";
import { after, test } from "node:test";

// set before the first getEnv(): the environment is read once per process
process.env.PGLITE_SHARED_BUFFERS_MB = "24";

const { openPglite } = await import("./database");

const handle = await openPglite("memory://");
after(() => handle.close());

test("the embedded database's buffer cache is the size PGLITE_SHARED_BUFFERS_MB sets", async () => {
  const adapter = await handle.factory.connect();
  try {
    const result = await adapter.queryRaw({ sql: "SHOW shared_buffers", args: [], argTypes: [] });
    assert.deepEqual(result.rows, [["24MB"]]);
    // PGlite's own start parameters are kept beside it
    const searchPath = await adapter.queryRaw({ sql: "SHOW search_path", args: [], argTypes: [] });
    assert.deepEqual(searchPath.rows, [["public"]]);
  } finally {
    await adapter.dispose();
  }
});
