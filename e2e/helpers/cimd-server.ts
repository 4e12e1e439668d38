import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A loopback HTTP server standing in for agents that host their client metadata document (CIMD). Each test
// registers documents (or misbehaviours) by path; test mode lets the service fetch loopback http.

type Route = (req: IncomingMessage, res: ServerResponse) => void;

export type CimdServer = {
  origin: string;
  url: (path: string) => string;
  route: (path: string, handler: Route) => void;
  /** Serves a valid document whose client_id is its own URL; returns that URL. */
  document: (path: string, fields: Record<string, unknown>, headers?: Record<string, string>) => string;
  hits: (path: string) => number;
  close: () => Promise<void>;
};

export const startCimdServer = async (): Promise<CimdServer> => {
  const routes = new Map<string, Route>();
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = (path: string) => `${origin}${path}`;
  return {
    origin,
    url,
    route: (path, handler) => routes.set(path, handler),
    document: (path, fields, headers = {}) => {
      const clientId = url(path);
      routes.set(path, (_req, res) =>
        res
          .writeHead(200, { "content-type": "application/json", ...headers })
          .end(JSON.stringify({ client_id: clientId, ...fields })),
      );
      return clientId;
    },
    hits: (path) => counts.get(path) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
