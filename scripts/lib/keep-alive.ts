import type { Server } from "node:http";
import type { Socket } from "node:net";

// Node closes a keep-alive connection when it has been idle for the server's keep-alive time (5 s, plus Node's 1 s
// margin over the `Keep-Alive: timeout=5` it advertises): its socket timer fires and the socket is destroyed. When
// this process has not run for a moment (a long synchronous step: PGlite's queries run on this thread, a route's
// first load, a busy machine), the timer and a request that arrived meanwhile are both due when it runs again, and
// timers run first: the connection was destroyed with the request unread in it. The client, which had sent it well
// within the advertised time, got no answer and a reset (ECONNRESET) some 6 s after its last answer, for a request
// answered at once when sent again. So the timeout closes the connection only after what arrived has been read.

/**
 * Keep-alive timeouts close a connection only when nothing arrived on it: the close waits one turn of the event
 * loop (setImmediate runs after the loop has read its sockets) and is dropped if the socket read anything since.
 */
export const closeIdleConnectionsAfterReads = (server: Server): void => {
  // a 'timeout' listener on the server replaces Node's own destroy on a socket's timeout
  server.on("timeout", (socket: Socket) => {
    const readBefore = socket.bytesRead;
    setImmediate(() => {
      if (socket.destroyed) return;
      // a request that arrived re-armed the timer (or started a request, which clears it): it is answered
      if (socket.bytesRead !== readBefore) return;
      socket.destroy();
    });
  });
};
