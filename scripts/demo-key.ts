// `npm run -s demo-key`: prints the demo platform key `npm start` keeps for a test-mode deployment (DEMO_KEY_FILE,
// else beside the PGlite data dir), alone on its line, for `API_KEY=$(npm run -s demo-key) …`. The server's log
// names the file and this command, never the key: a terminal that asks for it is not a log.
import path from "node:path";

import { demoKeyFile } from "@/lib/config/constants";

import { readDemoKey } from "./lib/setup-plan";

const file = demoKeyFile();
const key = readDemoKey(file);
if (!key) {
  console.error(
    `✖ No demo platform key in ${path.relative(process.cwd(), file) || file}: the first npm start of a test-mode deployment creates it (NODE_ENV=production never does; npm run admin -- create-api-key makes keys)`,
  );
  process.exit(1);
}
console.log(key);
