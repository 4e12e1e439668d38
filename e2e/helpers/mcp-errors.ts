import assert from "node:assert/strict";

/**
 * A protocol error through the SDK client: UCP puts the HTTP status first (400), so the SDK's Streamable HTTP
 * transport rejects with the JSON-RPC error body in its message; parse it and check code, UCP code and path.
 */
export const assertMcpProtocolError = async (
  call: Promise<unknown>,
  expected: { rpcCode: number; code: string; path?: string },
) => {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof Error, String(error));
    const json = error.message.slice(error.message.indexOf("{"));
    const body = JSON.parse(json) as { error: { code: number; data: { code: string; path?: string } } };
    assert.equal(body.error.code, expected.rpcCode);
    assert.equal(body.error.data.code, expected.code);
    if (expected.path) assert.equal(body.error.data.path, expected.path);
    return true;
  });
};
