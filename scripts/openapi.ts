// `npm run openapi`: writes public/openapi.json (served at /openapi.json) from the route files and operations.
import { writeFileSync } from "node:fs";
import path from "node:path";

import { renderOpenApi } from "./lib/openapi";
import { REPO_ROOT } from "./lib/paths";

writeFileSync(path.join(REPO_ROOT, "public/openapi.json"), await renderOpenApi());
console.log("wrote public/openapi.json");
