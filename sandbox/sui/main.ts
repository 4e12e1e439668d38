// The Sui sandbox (a fake fullnode, test double) as its own process: `npm run sandbox:sui` (see ../run-as-process.ts).
import { runSandboxProcess } from "../run-as-process";
import { startSuiSandbox } from "./server";

await runSandboxProcess(startSuiSandbox, "SUI_SANDBOX_PORT");
