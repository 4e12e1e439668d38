// The text a buyer signs to sign in (a Sui personal message; shaped after EIP-4361 "Sign-In with Ethereum" so
// wallets show it readably). The nonce is next-auth's CSRF token: single-session, and checked by next-auth
// against its cookie before our verifier runs. No "server-only": the browser builds the same message.

export type SignInFields = { domain: string; address: string; uri: string; nonce: string; issuedAt: string };

export const buildSignInMessage = ({ domain, address, uri, nonce, issuedAt }: SignInFields): string =>
  [
    `${domain} wants you to sign in with your Sui account:`,
    address,
    "",
    "Sign in to the Agent Commerce Service to review and manage the agents linked to your account.",
    "",
    `URI: ${uri}`,
    `Nonce: ${nonce}`,
    `Issued At: ${issuedAt}`,
  ].join("\n");

/** Reads the fields back; null when the text is not a sign-in message of this shape. */
export const parseSignInMessage = (message: string): SignInFields | null => {
  const lines = message.split("\n");
  if (lines.length !== 8) return null;
  const domain = /^(.+) wants you to sign in with your Sui account:$/.exec(lines[0] ?? "")?.[1];
  const address = lines[1] ?? "";
  const uri = /^URI: (.+)$/.exec(lines[5] ?? "")?.[1];
  const nonce = /^Nonce: (.+)$/.exec(lines[6] ?? "")?.[1];
  const issuedAt = /^Issued At: (.+)$/.exec(lines[7] ?? "")?.[1];
  if (!domain || !uri || !nonce || !issuedAt) return null;
  const fields = { domain, address, uri, nonce, issuedAt };
  return buildSignInMessage(fields) === message ? fields : null;
};
