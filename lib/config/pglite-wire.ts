import { messages, type ParserOptions, type Results, type RowMode } from "@electric-sql/pglite";

// The few messages of PostgreSQL's frontend/backend protocol (version 3) that a prepared statement's call sends and
// receives on PGlite, written and read here instead of by PGlite's own protocol classes. Those copy every field value
// and column name into a new buffer and build an object per message, through private fields that its build turns into
// WeakMap lookups: with the Describe of every call they were about a sixth of the server's CPU in a card checkout
// flow on PGlite (docs/performance.md). A call sends Bind, Execute, Sync (no Describe: the columns are the
// statement's, described once when it was prepared, and PostgreSQL refuses to run a prepared statement whose result
// columns have changed since) and reads the answer's rows straight from PGlite's output.

/** A result column as PGlite's results give it. */
export type Field = { name: string; dataTypeID: number };

/** A parameter's value on the wire: text, or bytes sent in binary format (as PGlite's own bind does). */
export type WireValue = string | Uint8Array | null;

const EXECUTE_SYNC = Buffer.from([
  // Execute: the unnamed portal, every row
  0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0,
  // Sync
  0x53, 0, 0, 0, 4,
]);

/** The statement name's bytes, NUL-terminated, as Bind names it. */
export const statementNameBytes = (name: string): Buffer => Buffer.from(`${name}\0`, "utf8");

/** Bind (the unnamed portal to statement `name`, text results), Execute and Sync, as one message buffer. */
export const bindExecuteSync = (name: Buffer, values: readonly WireValue[]): Buffer => {
  const binary = values.some((v) => v !== null && typeof v !== "string");
  const lengths = values.map((v) =>
    v === null ? -1 : typeof v === "string" ? Buffer.byteLength(v, "utf8") : v.byteLength,
  );
  // kind, length, portal's NUL, name, format codes, parameter count, values, result format count
  const bindLength =
    4 +
    1 +
    name.length +
    2 +
    (binary ? 2 * values.length : 0) +
    2 +
    lengths.reduce((n, l) => n + 4 + Math.max(l, 0), 0) +
    2;
  const out = Buffer.allocUnsafe(1 + bindLength + EXECUTE_SYNC.length);
  let at = out.writeUInt8(0x42, 0);
  at = out.writeInt32BE(bindLength, at);
  at = out.writeUInt8(0, at);
  at += name.copy(out, at);
  if (binary) {
    at = out.writeInt16BE(values.length, at);
    for (const v of values) at = out.writeInt16BE(v !== null && typeof v !== "string" ? 1 : 0, at);
  } else {
    at = out.writeInt16BE(0, at);
  }
  at = out.writeInt16BE(values.length, at);
  values.forEach((v, i) => {
    at = out.writeInt32BE(lengths[i]!, at);
    if (typeof v === "string") at += out.write(v, at, "utf8");
    else if (v !== null) {
      out.set(v, at);
      at += v.byteLength;
    }
  });
  at = out.writeInt16BE(0, at);
  EXECUTE_SYNC.copy(out, at);
  return out;
};

type TypedParser = (text: string, typeId: number) => unknown;

/** The commands whose count PGlite's results add to `affectedRows`. */
const COUNTED = new Set(["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"]);

const ERROR_FIELDS = {
  S: "severity",
  C: "code",
  D: "detail",
  H: "hint",
  P: "position",
  p: "internalPosition",
  q: "internalQuery",
  W: "where",
  s: "schema",
  t: "table",
  c: "column",
  d: "dataType",
  n: "constraint",
  F: "file",
  L: "line",
  R: "routine",
} as const;

/** An ErrorResponse's body as PGlite's DatabaseError, with the same fields PGlite's parser sets. */
const databaseError = (reply: Buffer, start: number, end: number, length: number): messages.DatabaseError => {
  const found: Record<string, string> = {};
  let at = start;
  while (at < end && reply[at] !== 0) {
    const code = String.fromCharCode(reply[at]!);
    const nul = reply.indexOf(0, at + 1);
    found[code] = reply.toString("utf8", at + 1, nul);
    at = nul + 1;
  }
  const error = new messages.DatabaseError(found.M ?? "", length, "error");
  for (const [code, field] of Object.entries(ERROR_FIELDS)) error[field] = found[code];
  return error;
};

/**
 * Reads the answer to `bindExecuteSync`: the rows of `fields` parsed as PGlite's results parse them (by the
 * `parsers` of the column's type, the instance's with the call's own over them; else the text), or the first error
 * the backend sent, thrown after the whole answer was read. Notices and notifications are not passed on (nothing
 * here listens on PGlite).
 */
export const readExecution = (
  reply: Buffer,
  fields: readonly Field[],
  parsers: ParserOptions,
  rowMode: RowMode | undefined,
): Results => {
  // PGlite's results pass the type to a parser too, though its own type for one names only the text
  const parse = fields.map(({ dataTypeID }) => parsers[dataTypeID] as TypedParser | undefined);
  const rows: Results["rows"] = [];
  let result: Results | undefined;
  let error: messages.DatabaseError | undefined;
  for (let at = 0; at + 5 <= reply.length;) {
    const kind = reply[at]!;
    const length = reply.readInt32BE(at + 1);
    const start = at + 5;
    const end = at + 1 + length;
    at = end;
    if (error) continue;
    if (kind === 0x44) {
      // DataRow
      const count = reply.readInt16BE(start);
      const values: unknown[] = new Array(count);
      let p = start + 2;
      for (let i = 0; i < count; i++) {
        const size = reply.readInt32BE(p);
        p += 4;
        if (size < 0) values[i] = null;
        else {
          const text = reply.toString("utf8", p, p + size);
          const parseValue = parse[i];
          values[i] = parseValue ? parseValue(text, fields[i]!.dataTypeID) : text;
          p += size;
        }
      }
      // PGlite's own results type an array row as a record too
      if (rowMode === "array") rows.push(values as unknown as Results["rows"][number]);
      else {
        const row: Record<string, unknown> = {};
        fields.forEach((field, i) => (row[field.name] = values[i]));
        rows.push(row);
      }
    } else if (kind === 0x43) {
      // CommandComplete: "SELECT 3", "INSERT 0 1", "UPDATE 2", "BEGIN"
      const tag = reply.toString("utf8", start, end - 1).split(" ");
      const command = tag[0]!;
      const count = Number.parseInt(tag[tag.length - 1]!, 10);
      result ??= {
        rows,
        fields: fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })),
        command,
        affectedRows: COUNTED.has(command) && !Number.isNaN(count) ? count : 0,
        ...(Number.isNaN(count) ? {} : { rowCount: count }),
      };
    } else if (kind === 0x45) {
      error = databaseError(reply, start, end, length);
    }
  }
  if (error) throw error;
  return result ?? { affectedRows: 0, rows: [], fields: [] };
};
