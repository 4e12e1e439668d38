import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { REPO_ROOT } from "./paths";
import { quickstartCommands, readmeSnippets, regionOf, renderSnippets } from "./readme-snippets";

// The README's agent snippets are the text of the examples CI runs: a snippet edited in the README alone, or an
// example changed without its README block, fails here.

const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

test("every README snippet is its example's region, character for character", () => {
  const snippets = readmeSnippets(readme);
  assert.deepEqual(
    snippets.map((s) => `${s.file}#${s.region}`).sort(),
    [
      "examples/agent-crypto/main.ts#readme-crypto-link",
      "examples/agent-crypto/main.ts#readme-crypto-pay",
      "examples/agent-mcp/main.ts#readme-mcp",
      "examples/agent-rest/main.ts#readme-mandate",
      "examples/agent-rest/main.ts#readme-rest",
    ],
    "the README shows the REST and MCP agents, the mandate and the crypto agent's linking and paying from the examples",
  );
  for (const snippet of snippets) {
    assert.equal(
      snippet.text,
      regionOf(snippet.file, snippet.region),
      `README block ${snippet.file}#${snippet.region} differs from the file: run npm run readme:snippets`,
    );
  }
  assert.equal(renderSnippets(readme), readme);
});

test("regions: nested markers left out; a changed example shows up as a difference; a missing region is named", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "acs-snippets-"));
  try {
    const file = "example.ts";
    const source = (call: string) =>
      [
        "setup();",
        "// #region outer",
        "a();",
        "  // #region inner",
        call,
        "  // #endregion inner",
        "// #endregion outer",
        "",
      ].join("\n");
    writeFileSync(path.join(dir, file), source("b();"));
    assert.equal(regionOf(file, "outer", dir), "a();\nb();\n");
    assert.equal(regionOf(file, "inner", dir), "b();\n");
    const markdown =
      "# x\n<!-- snippet: example.ts#outer -->\n\n```ts\na();\nb();\n```\n\n<!-- /snippet -->\n";
    assert.equal(renderSnippets(markdown, dir), markdown);
    writeFileSync(path.join(dir, file), source("c();"));
    assert.equal(readmeSnippets(markdown)[0]?.text, "a();\nb();\n");
    assert.notEqual(renderSnippets(markdown, dir), markdown);
    assert.throws(() => regionOf(file, "absent", dir), /example.ts has no region absent/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the quickstart blocks e2e/http/quickstart.spec.ts runs: the server, then both example agents with the key", () => {
  assert.deepEqual(quickstartCommands(readme, "server"), ["npm ci && npm start"]);
  const agents = quickstartCommands(readme, "agents");
  assert.deepEqual(
    agents.map((c) => c.replace(/^API_KEY=\$\(npm run -s demo-key\) /, "")),
    ["npx tsx examples/agent-rest/main.ts", "npx tsx examples/agent-mcp/main.ts"],
  );
  assert.deepEqual(quickstartCommands("<!-- quickstart: x -->\n\n```sh\n# note\na   # why\n\nb\n```", "x"), [
    "a",
    "b",
  ]);
  assert.throws(() => quickstartCommands(readme, "absent"), /no quickstart block "absent"/);
});
