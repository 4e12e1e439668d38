import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// TEST DOUBLE — a small local fake of the Meilisearch HTTP API, implementing only the documented endpoints our
// adapter (lib/catalog/search/meilisearch.ts) calls through the official client: settings update, document
// additions, batch and full deletions, search, and task polling (GET /tasks/:uid answers "processing" once before
// "succeeded", so the client's polling is exercised). It records every request for assertions. Its search is NOT
// Meilisearch's ranking: it returns stored documents in insertion order (offset/limit) with a facet distribution,
// enough to test what the adapter sends and how it maps the answer. The real engine's behaviour is covered by the
// contract suite whenever MEILISEARCH_URL points at a real server.

type Doc = Record<string, unknown> & { id: string };
type Task = { taskUid: number; indexUid: string; type: string; polls: number };
export type RecordedRequest = { method: string; path: string; body: unknown };

export type FakeMeilisearch = {
  url: string;
  requests: RecordedRequest[];
  settings: Map<string, unknown>;
  documents: (indexUid: string) => Map<string, Doc>;
  taskPolls: () => number;
  close: () => Promise<void>;
};

const readBody = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
};

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

export const startFakeMeilisearch = async (): Promise<FakeMeilisearch> => {
  const indexes = new Map<string, Map<string, Doc>>();
  const settings = new Map<string, unknown>();
  const tasks = new Map<number, Task>();
  const requests: RecordedRequest[] = [];
  let nextTask = 0;
  let polls = 0;
  const docs = (uid: string) => {
    let map = indexes.get(uid);
    if (!map) indexes.set(uid, (map = new Map()));
    return map;
  };
  const enqueue = (res: ServerResponse, indexUid: string, type: string) => {
    const task: Task = { taskUid: nextTask++, indexUid, type, polls: 0 };
    tasks.set(task.taskUid, task);
    send(res, 202, {
      taskUid: task.taskUid,
      indexUid,
      status: "enqueued",
      type,
      enqueuedAt: new Date().toISOString(),
    });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const body = await readBody(req);
      requests.push({ method: req.method ?? "GET", path: `${url.pathname}${url.search}`, body });
      const parts = url.pathname.split("/").filter(Boolean);
      if (url.pathname === "/health" && req.method === "GET") return send(res, 200, { status: "available" });
      if (parts[0] === "tasks" && parts[1] && req.method === "GET") {
        const task = tasks.get(Number(parts[1]));
        if (!task) return send(res, 404, { message: "task not found", code: "task_not_found" });
        polls++;
        task.polls++;
        const status = task.polls === 1 ? "processing" : "succeeded";
        return send(res, 200, { uid: task.taskUid, indexUid: task.indexUid, type: task.type, status });
      }
      if (parts[0] !== "indexes" || !parts[1])
        return send(res, 404, { message: "not found", code: "not_found" });
      const uid = parts[1];
      const rest = parts.slice(2).join("/");
      if (rest === "settings" && req.method === "PATCH") {
        settings.set(uid, body);
        return enqueue(res, uid, "settingsUpdate");
      }
      if (rest === "documents" && req.method === "POST") {
        for (const doc of body as Doc[]) docs(uid).set(doc.id, doc);
        return enqueue(res, uid, "documentAdditionOrUpdate");
      }
      if (rest === "documents" && req.method === "DELETE") {
        docs(uid).clear();
        return enqueue(res, uid, "documentDeletion");
      }
      if (rest === "documents/delete-batch" && req.method === "POST") {
        for (const id of body as string[]) docs(uid).delete(String(id));
        return enqueue(res, uid, "documentDeletion");
      }
      if (rest === "search" && req.method === "POST") {
        const q = body as { offset?: number; limit?: number; facets?: string[] };
        const all = [...docs(uid).values()];
        const offset = q.offset ?? 0;
        const limit = q.limit ?? 20;
        const facetDistribution = Object.fromEntries(
          (q.facets ?? []).map((facet) => {
            const counts: Record<string, number> = {};
            for (const doc of all) {
              const value = doc[facet];
              for (const v of Array.isArray(value) ? value : [value]) {
                if (typeof v === "string") counts[v] = (counts[v] ?? 0) + 1;
              }
            }
            return [facet, counts];
          }),
        );
        return send(res, 200, {
          hits: all.slice(offset, offset + limit),
          query: "",
          processingTimeMs: 0,
          offset,
          limit,
          estimatedTotalHits: all.length,
          facetDistribution,
        });
      }
      return send(res, 404, {
        message: `fake does not implement ${req.method} ${url.pathname}`,
        code: "not_found",
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    settings,
    documents: docs,
    taskPolls: () => polls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
