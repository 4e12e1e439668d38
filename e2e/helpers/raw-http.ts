import { connect, type Socket } from "node:net";

// HTTP/1.1 on a raw socket, for tests of the connection itself (keep-alive, pipelining, bodies the server does
// not read): requests are written as given, answers are read off the one socket in order, each with the time it
// took. A fetch client would hide what these tests look at (it retries, pools, and never pipelines).

export type RawAnswer = { status: number; headers: Record<string, string>; body: Buffer };

type Waiter = { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void };

/** The parsed answers of one connection, in order, from the bytes as they arrive. */
const answerReader = () => {
  let buffer = Buffer.alloc(0);
  /** HEAD answers (and 1xx) have no body whatever their headers say: the requests' methods, in order. */
  const methods: string[] = [];
  const next = (): RawAnswer | null => {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return null;
    const lines = buffer.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "")?.[1]);
    if (!status) throw new Error(`not an HTTP/1.1 answer: ${JSON.stringify(lines[0])}`);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let rest = buffer.subarray(end + 4);
    if (status < 200) {
      buffer = rest;
      return { status, headers, body: Buffer.alloc(0) };
    }
    const bodiless = methods[0] === "HEAD" || status === 204 || status === 304;
    let body: Buffer;
    if (bodiless) body = Buffer.alloc(0);
    else if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = rest.indexOf("\r\n");
        if (lineEnd < 0) return null;
        const size = parseInt(rest.subarray(0, lineEnd).toString("latin1"), 16);
        if (rest.length < lineEnd + 2 + size + 2) return null;
        if (size === 0) {
          // no trailers are sent by these servers: the last chunk ends with an empty line
          rest = rest.subarray(lineEnd + 4);
          break;
        }
        parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        rest = rest.subarray(lineEnd + 2 + size + 2);
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (rest.length < length) return null;
      body = rest.subarray(0, length);
      rest = rest.subarray(length);
    }
    buffer = rest;
    methods.shift();
    return { status, headers, body };
  };
  return {
    sent: (method: string) => methods.push(method),
    push: (chunk: Buffer, onAnswer: (answer: RawAnswer) => void) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let answer = next(); answer; answer = next()) onAnswer(answer);
    },
  };
};

export type RawConnection = {
  /** Writes a request (or its first part) and resolves with its answer; requests may be pipelined. */
  send: (method: string, head: string, body?: Buffer | string) => Promise<RawAnswer>;
  /** Writes bytes without expecting a new answer (the rest of a body). */
  write: (bytes: Buffer | string) => void;
  close: () => void;
  /** Resolves when the server closes or resets the connection. */
  closed: Promise<string>;
  isOpen: () => boolean;
};

export const openRawConnection = async (port: number, host = "127.0.0.1"): Promise<RawConnection> => {
  const socket: Socket = connect(port, host);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const reader = answerReader();
  const waiting: Waiter[] = [];
  let open = true;
  const closed = new Promise<string>((resolve) => {
    let reason = "closed";
    socket.on("error", (error: NodeJS.ErrnoException) => (reason = error.code ?? error.message));
    socket.on("close", () => {
      open = false;
      for (const w of waiting.splice(0)) w.reject(new Error(`connection ${reason} before the answer`));
      resolve(reason);
    });
  });
  socket.on("data", (chunk: Buffer) => {
    try {
      reader.push(chunk, (answer) => {
        if (answer.status < 200) return; // 100 Continue: the final answer follows
        waiting.shift()?.resolve(answer);
      });
    } catch (error) {
      socket.destroy(error as Error);
    }
  });
  return {
    send: (method, head, body) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        reader.sent(method);
        socket.write(
          body === undefined ? head : Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)]),
        );
      }),
    write: (bytes) => void socket.write(bytes),
    close: () => socket.destroy(),
    closed,
    isOpen: () => open,
  };
};
