// A provider sandbox (test double) as its own process: `npm run sandbox:<name>`, or started by `npm start` for
// test-mode stores when its URL variable is not set. Prints one JSON line `{"url": …}` when it listens, then logs
// nothing. It stops on SIGINT/SIGTERM and when its standard input closes, so it never outlives the server that
// started it through a pipe.

export const runSandboxProcess = async (
  start: (options: { port: number; unref: boolean }) => Promise<{ url: string }>,
  portVariable: string,
): Promise<void> => {
  const portArg = process.argv.find((a) => a.startsWith("--port="))?.slice("--port=".length);
  const port = portArg === undefined ? Number(process.env[portVariable] ?? 0) : Number(portArg);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`--port must be an integer from 0 to 65535 (got "${portArg}")`);
    process.exit(2);
  }
  const sandbox = await start({ port, unref: false });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url })}\n`);
  const stop = (): never => process.exit(0);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (!process.stdin.isTTY) {
    process.stdin.on("end", stop);
    process.stdin.on("close", stop);
    process.stdin.resume();
  }
};
