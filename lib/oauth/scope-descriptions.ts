// What each scope lets an agent do, in plain words for the consent page and the consent centre.
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "purchase:complete":
    "Complete purchases on your behalf (for example pay a checkout with your crypto wallet). This is not permission to spend: you approve payments and set spending limits separately.",
  offline_access:
    "Stay connected while you are away: the agent can renew its access without asking you again, until you revoke it.",
};

/** Each scope's name in a few words, shown where a badge or a heading names it. */
export const SCOPE_TITLES: Readonly<Record<string, string>> = {
  "purchase:complete": "Complete purchases",
  offline_access: "Stay connected",
};

export const scopeTitle = (scope: string): string => SCOPE_TITLES[scope] ?? scope;

export const describeScope = (scope: string): string => SCOPE_DESCRIPTIONS[scope] ?? scope;
