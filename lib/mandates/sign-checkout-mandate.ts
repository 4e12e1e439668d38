// The agent side of DECISIONS.md B5 (benchmark, crash tests and e2e agents sign as real agents do): the agent
// kit's signer, re-exported for the code that imported it from here.
export { signCheckoutMandate } from "@agent-commerce/agent-kit/mandate";
