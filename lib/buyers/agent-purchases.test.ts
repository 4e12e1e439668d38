import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { ownerOf, paidWithWords } from "./agent-purchases";

describe("agent purchases — who bought it and how it was paid, in words", () => {
  test("the binding names the owner before the creator: an agent of this buyer, the buyer alone, or nobody here", () => {
    const buyer = "byr_1";
    const agent = "https://agent.example/client.json";
    assert.deepEqual(
      ownerOf({ principalId: `buyer:${buyer}:agent:${agent}`, boundPrincipalId: null }, buyer),
      {
        clientId: agent,
      },
    );
    assert.deepEqual(
      ownerOf({ principalId: "key:key_platform", boundPrincipalId: `buyer:${buyer}:agent:${agent}` }, buyer),
      { clientId: agent },
    );
    assert.equal(
      ownerOf({ principalId: "key:key_platform", boundPrincipalId: `buyer:${buyer}` }, buyer),
      "own",
    );
    assert.equal(ownerOf({ principalId: "key:key_platform", boundPrincipalId: null }, buyer), null);
    // another buyer whose id starts with this one's is not this buyer
    assert.equal(
      ownerOf({ principalId: `buyer:${buyer}0:agent:${agent}`, boundPrincipalId: null }, buyer),
      null,
    );
    assert.equal(
      ownerOf({ principalId: "key:key_platform", boundPrincipalId: `buyer:${buyer}0` }, buyer),
      null,
    );
  });

  test("the rail in words: Card, Crypto with the coins paid (each once), nothing for an unpaid order", () => {
    assert.equal(paidWithWords("svc.card", undefined), "Card");
    assert.equal(paidWithWords("svc.crypto", [{ symbol: "USDC" }]), "Crypto (USDC)");
    assert.equal(
      paidWithWords("svc.crypto", [{ symbol: "USDC" }, { symbol: "SUI" }, { symbol: "USDC" }]),
      "Crypto (USDC + SUI)",
    );
    assert.equal(paidWithWords("svc.crypto", []), "Crypto");
    assert.equal(paidWithWords(null, undefined), null);
  });
});
