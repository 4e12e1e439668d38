import assert from "node:assert/strict";
import { test } from "node:test";

import { assertUcpSchema } from "../../../e2e/helpers/ucp-schema";
import { errorDown, messageDown } from "./envelope";

const envelope = (code: string, extra: Record<string, unknown> = {}) => ({
  ucp: { version: "2026-04-08", status: "error" },
  messages: [{ type: "error", code, content: `${code} happened`, severity: "unrecoverable" }],
  ...extra,
});

test("business outcomes without a resource get the older REST status codes", () => {
  assert.equal(errorDown("2026-01-11", envelope("not_found"), 200).status, 404);
  assert.equal(errorDown("2026-01-23", envelope("checkout_not_modifiable"), 200).status, 409);
  assert.equal(errorDown("2026-01-23", envelope("out_of_stock"), 200).status, 400);
  // the refusal of a capability the version lacks stays a 200 answer, as at 2026-04-08
  assert.equal(errorDown("2026-01-11", envelope("capabilities_incompatible"), 200).status, 200);
  // protocol errors keep theirs
  const protocol = envelope("version_unsupported", { code: "version_unsupported", content: "no" });
  assert.equal(errorDown("2026-01-11", protocol, 422).status, 422);
});

test("the older error body: the 01-11 example shape plus code/content and the version's ucp block", () => {
  const { body } = errorDown(
    "2026-01-11",
    envelope("not_found", { continue_url: "https://x.example/c" }),
    200,
  );
  assert.deepEqual(body, {
    ucp: { version: "2026-01-11", capabilities: [] },
    status: "requires_escalation",
    messages: [
      { type: "error", code: "not_found", content: "not_found happened", severity: "requires_buyer_input" },
    ],
    continue_url: "https://x.example/c",
    code: "not_found",
    content: "not_found happened",
  });
  assert.deepEqual(errorDown("2026-01-23", envelope("not_found"), 200).body.ucp, {
    version: "2026-01-23",
    capabilities: {},
  });
  for (const version of ["2026-01-11", "2026-01-23"] as const) {
    const message = (errorDown(version, envelope("not_found"), 200).body.messages as unknown[])[0];
    assertUcpSchema("shopping/types/message.json", message, version);
  }
});

test("warnings lose the 2026-04-08 presentation fields and still match message.json", () => {
  const warning = messageDown({
    type: "warning",
    code: "discount_code_invalid",
    content: "Unknown code",
    presentation: "notice",
    url: "https://x.example",
    image_url: "https://x.example/i.png",
  });
  assert.deepEqual(warning, { type: "warning", code: "discount_code_invalid", content: "Unknown code" });
  assertUcpSchema("shopping/types/message.json", warning, "2026-01-11");
});
