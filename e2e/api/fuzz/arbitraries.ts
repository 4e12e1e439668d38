import fc from "fast-check";

// fast-check arbitraries for the fuzz test: values shaped by an operation's JSON Schema (so most calls get past
// the parser and reach validation and the operation), with hostile values mixed in at every node — the inputs
// that once reached PostgreSQL or a recursive walker raw (NUL, lone surrogates, Infinity, deep nesting), wrong
// types, extra keys, long strings — and raw bytes for paths, headers and bodies.

type JsonSchema = Record<string, unknown>;

/** Stand-ins replaced in the serialised text: JSON.stringify cannot write these. */
export const INFINITY_MARK = "__fuzz_infinity__";
export const DEEP_MARK = "__fuzz_deep__";

/** Serialises a generated value, putting back what JSON.stringify cannot express (1e999, 200-deep nesting). */
export const toJsonText = (value: unknown): string =>
  JSON.stringify(value)
    .replaceAll(`"${INFINITY_MARK}"`, "1e999")
    .replaceAll(`"${DEEP_MARK}"`, `${"[".repeat(200)}${"]".repeat(200)}`);

const hostileString = fc.constantFrom(
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "😀",
  "\u202e",
  "",
  " ",
  "%FF",
  "../../etc/passwd",
  "'; drop table carts; --",
  "<script>alert(1)</script>",
  "x".repeat(3000),
  INFINITY_MARK,
  DEEP_MARK,
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, [], {}, [null], { "": 1 }),
  fc.string({ unit: "binary", maxLength: 12 }),
);

/** Resolves `#/$defs/x` refs inside one generated schema. */
const resolve = (schema: JsonSchema, root: JsonSchema): JsonSchema => {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) node = (node as Record<string, unknown> | undefined)?.[part];
  return (node as JsonSchema | undefined) ?? {};
};

export type SchemaArbOptions = {
  /** Realistic strings to draw from (existing ids), so some calls reach real resources. */
  strings: readonly string[];
  /** Share of nodes replaced by a hostile value (0..1). */
  hostility: number;
};

/** An arbitrary of JSON values shaped by `schema`, hostile at a given share of nodes. */
export const fromSchema = (schema: JsonSchema, options: SchemaArbOptions): fc.Arbitrary<unknown> => {
  const hostileWeight = Math.max(1, Math.round(options.hostility * 100));
  const plainString = fc.oneof(
    fc.string({ maxLength: 16 }),
    options.strings.length > 0 ? fc.constantFrom(...options.strings) : fc.constant("x"),
  );

  const build = (raw: JsonSchema, depth: number): fc.Arbitrary<unknown> => {
    const node = resolve(raw, schema);
    const shaped = shape(node, depth);
    return fc.oneof(
      { weight: 100 - hostileWeight, arbitrary: shaped },
      { weight: hostileWeight, arbitrary: hostileValue },
    );
  };

  const shape = (node: JsonSchema, depth: number): fc.Arbitrary<unknown> => {
    if (depth > 6) return fc.constant({});
    if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...(node.enum as unknown[]));
    if ("const" in node) return fc.constant(node.const);
    const union = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
    if (Array.isArray(union) && union.length > 0) return fc.oneof(...union.map((s) => build(s, depth + 1)));
    const type = Array.isArray(node.type) ? (node.type[0] as string) : (node.type as string | undefined);
    switch (type) {
      case "object": {
        const properties = (node.properties as Record<string, JsonSchema> | undefined) ?? {};
        const required = new Set((node.required as string[] | undefined) ?? []);
        // required keys always; each optional key in about one call out of four, so that many calls are
        // valid enough to pass validation and reach the operation (and the database) with a hostile string
        const entries = Object.entries(properties).map(([k, child]) => {
          const value = build(child, depth + 1);
          const entry = value.map((v) => [k, v] as const);
          return required.has(k)
            ? entry.map((e) => [e])
            : fc.option(entry, { freq: 3 }).map((e) => (e ? [e] : []));
        });
        const record = fc.tuple(...entries).map((parts) => Object.fromEntries(parts.flat()));
        // sometimes a key the schema does not know
        return fc
          .tuple(record, fc.option(fc.tuple(fc.string({ maxLength: 8 }), hostileValue), { freq: 8 }))
          .map(([value, extra]) => (extra ? { ...value, [extra[0]]: extra[1] } : value));
      }
      case "array":
        return fc.array(build((node.items as JsonSchema | undefined) ?? {}, depth + 1), { maxLength: 3 });
      case "string":
        // strings are where NUL and lone surrogates reached the database: hostile more often
        return fc.oneof({ weight: 4, arbitrary: plainString }, { weight: 1, arbitrary: hostileString });
      case "integer":
        return fc.oneof(fc.integer({ min: -3, max: 1000 }), fc.constantFrom(0, 1, 2 ** 31, -(2 ** 31)));
      case "number":
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  };

  return build(schema, 0);
};

/** A path segment: a realistic id, or raw bytes percent-encoded (invalid UTF-8 and NUL included). */
export const pathSegment = (ids: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...ids),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("")),
    fc.constantFrom("%", "%G0", "%00", "%C0%80", "%ED%A0%80", "..", "%2e%2e", "a%2Fb"),
  );

/** A header value Headers accepts (no CR, LF or NUL): visible ASCII and Latin-1, sometimes huge. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, "")),
  fc
    .uint8Array({ maxLength: 40 })
    .map((bytes) => String.fromCharCode(...[...bytes].filter((b) => b >= 0x20 && b !== 0x7f))),
  fc.constantFrom('profile="http://127.0.0.1:1/x"', 'profile="https://agent.invalid/p"', "x".repeat(9000)),
);

/** Raw body bytes: random, truncated JSON, or invalid UTF-8 inside a JSON string. */
export const rawBody: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.constantFrom(
    Buffer.from('{"line_items":['),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    Buffer.from('{"a":"\\ud800"}'),
    Buffer.from("[]"),
    Buffer.from("null"),
    Buffer.from(`${"[".repeat(10_000)}${"]".repeat(10_000)}`),
  ),
);
