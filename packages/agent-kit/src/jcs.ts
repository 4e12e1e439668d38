// RFC 8785 JSON Canonicalization Scheme for JSON values: object members sorted by their names' UTF-16 code units,
// no whitespace, numbers and strings as ECMAScript's JSON.stringify writes them (which is what RFC 8785 §3.2.2
// prescribes). Members whose value is undefined are left out, as JSON.stringify does. Non-finite numbers have no
// JSON form and are refused.

export const canonicalJson = (value: unknown): string => {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`${value} has no JSON form (RFC 8785)`);
  }
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`a ${typeof value} has no JSON form (RFC 8785)`);
    return text;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item: unknown) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  }
  const members = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(",")}}`;
};
