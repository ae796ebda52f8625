/**
 * The web app never answers wrong, nor waits on a hostile query (issue 37): the server listens
 * before its first build has ended (the list fills in; a search waits for the end and answers
 * from the whole database); a catastrophic `re:` pattern answers within its time limit, and a
 * plain search right after it answers normally; a session rewritten in place with its size and
 * mtime kept is read again (the cache compares ctime and inode too).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { makeStore, PLANTED, type TestStore } from "../test/store.js";
import { type RunningServer, startServer } from "./server.js";

function get(server: RunningServer, path: string): Promise<{ status: number; body: string }> {
  const headers = { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${server.token}` };
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

let store: TestStore | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  store?.cleanup();
  server = undefined;
  store = undefined;
});

describe("serve and the session database", () => {
  it("listens before the first build ends; a search then waits for it and answers from all of it", async () => {
    store = makeStore(30);
    server = await startServer({ root: store.root, persistent: false, searchThreads: 0 });
    // The search is asked at once: it must not answer from a half-built database.
    const searched = get(server, `/api/search?q=${encodeURIComponent(`"${PLANTED}"`)}`);
    const found = JSON.parse((await searched).body) as { sessions: { key: string }[] };
    expect(found.sessions.map((s) => s.key).sort()).toEqual([store.ids.fork, store.ids.planted].sort());
    await server.source.ready;
    const list = JSON.parse((await get(server, "/api/sessions")).body) as {
      sessions: unknown[];
      indexing?: unknown;
    };
    expect(list.indexing).toBeUndefined();
    // The 30 generated sessions and the 7 made by hand (test/store.ts).
    expect(list.sessions).toHaveLength(37);
  });

  it("answers re:(.*)*b within its time limit, then a plain search normally", async () => {
    store = makeStore(30);
    server = await startServer({ root: store.root, persistent: false, searchThreads: 0 });
    await server.source.ready;
    const hostile = await get(server, `/api/search?q=${encodeURIComponent("re:(.*)*b")}&limit=200`);
    expect(hostile.status).toBe(200);
    const simple = await get(server, `/api/search?q=${encodeURIComponent("re:b")}&limit=200`);
    const keys = (body: string) =>
      (JSON.parse(body) as { sessions: { key: string }[] }).sessions.map((s) => s.key).sort();
    expect(keys(hostile.body)).toEqual(keys(simple.body));
    const plain = await get(server, `/api/search?q=${encodeURIComponent(PLANTED)}`);
    expect(keys(plain.body)).toEqual([store.ids.fork, store.ids.planted].sort());
  });

  // `touch` sets the mtime back to the nanosecond (utimes takes a double).
  it("reads a session again after a rewrite in place of the same size with its mtime kept", {
    tags: ["processes"],
  }, async () => {
    store = makeStore(2);
    server = await startServer({ root: store.root, persistent: false, searchThreads: 0, pollMs: 100 });
    await server.source.ready;
    server.source.start();
    const path = store.paths.planted;
    const first = await get(server, `/api/sessions/${store.ids.planted}`);
    expect(first.body).toContain(PLANTED);
    const before = statSync(path, { bigint: true });
    const text = readFileSync(path, "utf8");
    const changed = text.replace("zebra quantum", "llama quantum");
    expect(Buffer.byteLength(changed)).toBe(Number(before.size));
    writeFileSync(path, changed);
    const ns = before.mtimeNs;
    const stamp = `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
    expect(spawnSync("touch", ["-m", "-d", stamp, path]).status).toBe(0);
    expect(statSync(path, { bigint: true }).mtimeNs).toBe(ns);
    // The store notices (its poll), and the page's next read has the new text.
    for (let i = 0; i < 100; i++) {
      const body = (await get(server, `/api/sessions/${store.ids.planted}`)).body;
      if (body.includes("llama quantum")) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the rewritten session was never read again");
  });
});
