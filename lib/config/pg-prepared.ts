import pg from "pg";

// The prepared calls of Prisma's pg adapter, served by a lighter query object than pg's own. The adapter sends
// every statement as `client.query({ name, text, values, rowMode: "array", types })`; pg's Query then copies
// that config (its property descriptors, ~9 µs a call in the busy server), builds a Result with a row template per
// answer, and asks the server to describe the portal on every call, so each answer starts with its columns again,
// which pg parses. Here a named statement's columns and their parsers are kept per connection from its first
// call (the server refuses to run a prepared statement whose result columns changed, so a kept description
// cannot go stale silently), and later calls send Bind, Execute and Sync only. Everything else is pg's: the
// client's queue and timeouts, its map of the statements each connection has parsed, the error it answers
// (which the adapter maps), the value encoding (`prepareValue`), the protocol parser. Calls the adapter does not
// send this way (unnamed statements, text queries, anything with a callback of its own or a row limit) go
// through pg's Query as before.
//
// A transaction's BEGIN, once this connection has run it, is answered at once and sent with the transaction's
// first statement, in the same write: one round trip fewer for every transaction (the order's,
// Prisma's interactive ones). The observer still counts it (lib/config/sql-observer.ts reports it when answered).
//
// The kept parsers come from the first call's `types`: the adapter passes the same mapping on every call (its
// own parsers over pg's), built anew each time, so it is not compared per call.

type Field = { name: string; dataTypeID: number; format?: string };
type Parser = (text: string) => unknown;
type Described = { fields: Field[]; parsers: Parser[] };
type Answer = { command: string | null; rowCount: number | null; fields: Field[]; rows: unknown[][] };
type Callback = (error: Error | null, answer?: Answer) => void;
type TypeSource = { getTypeParser: (oid: number, format: "text") => Parser };

/** The connection pg gives a submittable query: what this file uses of it. */
type Connection = {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
  parse: (query: { text: string; name: string; types: number[] }) => void;
  bind: (config: {
    portal: string;
    statement: string;
    values: unknown[];
    binary: boolean;
    valueMapper: (value: unknown) => unknown;
  }) => void;
  describe: (message: { type: "P"; name: string }) => void;
  execute: (config: { portal: string }) => void;
  sync: () => void;
  sendCopyFail: (message: string) => void;
};

const { prepareValue } = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils;
const COMMAND = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

/** A config the adapter sends that this file serves: a named statement, array rows, the adapter's parsers. */
type AdapterCall = { name: string; text: string; values?: unknown[]; types: TypeSource };
const isAdapterCall = (config: unknown): config is AdapterCall => {
  if (typeof config !== "object" || config === null) return false;
  const c = config as Record<string, unknown>;
  return (
    typeof c.submit !== "function" &&
    typeof c.name === "string" &&
    c.name !== "" &&
    typeof c.text === "string" &&
    c.rowMode === "array" &&
    typeof (c.types as TypeSource | undefined)?.getTypeParser === "function" &&
    (c.values === undefined || Array.isArray(c.values)) &&
    c.rows === undefined &&
    c.binary === undefined &&
    c.queryMode === undefined &&
    c.callback === undefined
  );
};

/** One call of a named statement, as pg's client runs a submittable query. */
class PreparedCall {
  readonly name: string;
  readonly text: string;
  callback: Callback | undefined;
  private readonly values: unknown[];
  private readonly types: TypeSource;
  private readonly kept: Map<string, Described>;
  private described: Described | undefined;
  private readonly rows: unknown[][] = [];
  private command: string | null = null;
  private rowCount: number | null = null;
  private failed: Error | null = null;

  /** The name of a BEGIN sent ahead of this statement in the same exchange (its completion comes first, and
   * this statement's own completion then sets the answer's command and count). */
  private readonly begin: string | undefined;

  constructor(call: AdapterCall, kept: Map<string, Described>, begin?: string) {
    this.name = call.name;
    this.text = call.text;
    this.values = call.values ?? [];
    this.types = call.types;
    this.kept = kept;
    this.begin = begin;
  }

  submit(connection: Connection): Error | null {
    const previous = connection.parsedStatements[this.name] ?? connection.submittedNamedStatements[this.name];
    if (previous !== undefined && previous !== this.text) {
      return new Error(
        `Prepared statements must be unique - '${this.name}' was used for a different statement`,
      );
    }
    // a description is kept only after a call that parsed or ran the statement here has succeeded
    this.described = previous === undefined ? undefined : this.kept.get(this.name);
    connection.stream.cork?.();
    try {
      if (this.begin !== undefined) {
        // parsed on this connection already (PreparedClient defers only such a BEGIN): bound and run first
        connection.bind({
          portal: "",
          statement: this.begin,
          values: [],
          binary: false,
          valueMapper: prepareValue,
        });
        connection.execute({ portal: "" });
      }
      if (previous === undefined) {
        connection.parse({ text: this.text, name: this.name, types: [] });
        connection.submittedNamedStatements[this.name] = this.text;
      }
      try {
        connection.bind({
          portal: "",
          statement: this.name,
          values: this.values,
          binary: false,
          valueMapper: prepareValue,
        });
      } catch (error) {
        // a value that cannot be encoded: nothing runs, and the answer is this error once the server is ready
        // again. A statement parsed just now stays parsed (pg records it when the server confirms), so the next
        // call does not parse it again; pg's Query closes it instead, and later calls of that name then fail.
        this.failed = error as Error;
        connection.sync();
        return null;
      }
      if (!this.described) connection.describe({ type: "P", name: "" });
      connection.execute({ portal: "" });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: Field[] }): void {
    const fields = message.fields.map(({ name, dataTypeID, format }) => ({ name, dataTypeID, format }));
    this.described = {
      fields,
      parsers: fields.map(({ dataTypeID }) => this.types.getTypeParser(dataTypeID, "text")),
    };
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.failed) return;
    const { parsers } = this.described!;
    const raw = message.fields;
    const row = new Array<unknown>(raw.length);
    try {
      for (let i = 0; i < raw.length; i++) {
        const value = raw[i];
        row[i] = value === null || value === undefined ? null : parsers[i]!(value);
      }
    } catch (error) {
      this.failed = error as Error;
      return;
    }
    this.rows.push(row);
  }

  handleCommandComplete(message: { text: string }): void {
    const match = COMMAND.exec(message.text);
    if (!match) return;
    this.command = match[1]!;
    const count = match[3] ?? match[2];
    if (count !== undefined) this.rowCount = Number.parseInt(count, 10);
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail("No source stream defined");
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    this.callback?.(this.failed ?? error);
  }

  handleReadyForQuery(): void {
    if (this.failed) {
      this.callback?.(this.failed);
      return;
    }
    // a statement without result columns is described by the absence of a row description
    const described = this.described ?? { fields: [], parsers: [] };
    this.kept.set(this.name, described);
    this.callback?.(null, {
      command: this.command,
      rowCount: this.rowCount,
      fields: described.fields,
      rows: this.rows,
    });
  }
}

/**
 * pg's Client with the adapter's named calls served by PreparedCall; given to the pool as its `Client`. Each
 * instance is one connection, and keeps the descriptions of the statements it has run.
 */
export class PreparedClient extends pg.Client {
  private readonly kept = new Map<string, Described>();
  /** A BEGIN answered but not sent yet: it goes ahead of the next statement, in the same write. */
  private pendingBegin: AdapterCall | null = null;

  /** Whether `call` is a BEGIN this connection has run before (so it is prepared here, and answers nothing). */
  private isKnownBegin(call: AdapterCall): boolean {
    const { parsedStatements } = (this as unknown as { connection: Connection }).connection;
    return (
      call.text === "BEGIN" && (call.values ?? []).length === 0 && parsedStatements[call.name] === "BEGIN"
    );
  }

  // pg's query has a dozen overloads; this one forwards whatever it does not serve
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (!isAdapterCall(config) || (values !== undefined && typeof values !== "function")) {
      // a query of pg's own after a deferred BEGIN: the BEGIN goes first (pg's queue keeps the order)
      const begin = this.pendingBegin;
      this.pendingBegin = null;
      if (begin) {
        const call = new PreparedCall(begin, this.kept);
        // a BEGIN fails only with its connection, and the query behind it then fails too
        call.callback = () => {};
        super.query(call as never);
      }
      return super.query(config, values, callback);
    }
    const done = (typeof values === "function" ? values : callback) as Callback | undefined;
    if (this.pendingBegin === null && this.isKnownBegin(config)) {
      // a transaction's BEGIN answers nothing the caller waits for: it is sent with the transaction's first
      // statement, one round trip fewer (an error there is that statement's, and the transaction is aborted,
      // as it would be after the statement failed on its own)
      this.pendingBegin = config;
      const answer: Answer = { command: "BEGIN", rowCount: null, fields: [], rows: [] };
      if (done) {
        process.nextTick(done, null, answer);
        return undefined;
      }
      return Promise.resolve(answer);
    }
    const call = new PreparedCall(config, this.kept, this.pendingBegin?.name);
    this.pendingBegin = null;
    if (done) {
      call.callback = done;
      super.query(call as never);
      return undefined;
    }
    return new Promise<Answer>((resolve, reject) => {
      call.callback = (error, answer) => (error ? reject(error) : resolve(answer!));
      super.query(call as never);
    });
  }
}
