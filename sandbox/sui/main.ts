// The Sui sandbox (a fake fullnode, test double) as its own process (`npm run sandbox:sui`; `npm start` runs it for
// test-mode stores when SUI_SANDBOX_URL is not set). Prints one JSON line `{"url": …}` when it listens, then logs
// nothing. It stops on SIGINT/SIGTERM and when its standard input closes, so it never outlives the server that
// started it through a pipe.
import { startSuiSandbox } from "./server";

const portArg = process.argv.find((a) => a.startsWith("--port="))?.slice("--port=".length);
const port = portArg === undefined ? Number(process.env.SUI_SANDBOX_PORT ?? 0) : Number(portArg);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be an integer from 0 to 65535 (got "${portArg}")`);
  process.exit(2);
}

const sandbox = await startSuiSandbox({ port, unref: false });
process.stdout.write(`${JSON.stringify({ url: sandbox.url })}\n`);

const stop = (): never => process.exit(0);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
if (!process.stdin.isTTY) {
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  process.stdin.resume();
}
