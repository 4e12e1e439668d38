// `npm run env:example`: writes .env.example from the validated environment (lib/config/env.ts).
import { writeFileSync } from "node:fs";
import path from "node:path";

import { renderEnvExample } from "./lib/env-docs";
import { REPO_ROOT } from "./lib/paths";

writeFileSync(path.join(REPO_ROOT, ".env.example"), renderEnvExample());
console.log("wrote .env.example");
