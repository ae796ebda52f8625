/**
 * Request tests of the server: the token (a bearer header or a parameter on every API request,
 * no cookie ever), Host and Origin checks, read-only
 * methods, paths only from the store, the headers; and the API's answers on a generated store
 * (sessions with fork-deduplicated costs, a session's entries and its growth, search, usage
 * totals equal to the database's stats, exports equal to the renderers' output, live events).
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { buildDocument, renderMarkdown } from "@pi-session/render";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistant, makeStore, PLANTED, type TestStore } from "../test/store.js";
import type { LocalSource } from "./local-source.js";
import { type RunningServer, startServer } from "./server.js";
import { loadSession } from "./session-data.js";

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(
  server: RunningServer,
  path: string,
  options: { headers?: Record<string, string>; method?: string; token?: boolean } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { host: `127.0.0.1:${server.port}`, ...options.headers };
  if (options.token !== false && !("authorization" in headers))
    headers.authorization = `Bearer ${server.token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: server.port, path, method: options.method ?? "GET", headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(path, readFileSync(path, "base64"));
    }
  };
  walk(root);
  return out;
}

describe("pi-session serve: the server", () => {
  let store: TestStore;
  let server: RunningServer;
  let before: Map<string, string>;

  beforeAll(async () => {
    store = makeStore(12);
    before = snapshot(store.root);
    server = await startServer({ root: store.root, persistent: false, pollMs: 200 });
    // The server listens at once; the list is whole once the first build has ended.
    await server.source.ready;
  });

  afterAll(async () => {
    await server?.close();
    store?.cleanup();
  });

  describe("refuses", () => {
    it("an API request without the token, or with a wrong one; a cookie is no token", async () => {
      for (const path of [
        "/api/sessions",
        "/api/info",
        `/api/sessions/${store.ids.planted}`,
        `/api/sessions/${store.ids.planted}/export?format=md`,
        "/api/search?q=zebra",
        "/api/usage",
        "/api/events",
      ]) {
        const none = await send(server, path, { token: false });
        expect(none.status, path).toBe(401);
        expect(none.body).not.toContain(PLANTED);
        expect(JSON.parse(none.body).error).toContain("needs its token");
        const wrong = await send(server, `${path}${path.includes("?") ? "&" : "?"}token=x${server.token}`, {
          token: false,
        });
        expect(wrong.status, path).toBe(401);
        const bearer = await send(server, path, { headers: { authorization: `Bearer x${server.token}` } });
        expect(bearer.status, path).toBe(401);
        const cookie = await send(server, path, {
          token: false,
          headers: { cookie: `pi-session-${server.port}=${server.token}; pi-session=${server.token}` },
        });
        expect(cookie.status, path).toBe(401);
      }
    });

    it("a foreign Host (DNS rebinding) or another port, even with the token", async () => {
      for (const host of [
        `evil.example:${server.port}`,
        `127.0.0.1:${server.port + 1}`,
        "127.0.0.1",
        `127.0.0.1.evil.example:${server.port}`,
      ]) {
        const reply = await send(server, "/api/sessions", { headers: { host } });
        expect(reply.status, host).toBe(421);
      }
      expect(
        (await send(server, "/api/info", { headers: { host: `localhost:${server.port}` } })).status,
      ).toBe(200);
    });

    it("a cross-site Origin or Sec-Fetch-Site", async () => {
      const evil = await send(server, "/api/sessions", { headers: { origin: "https://evil.example" } });
      expect(evil.status).toBe(403);
      const otherPort = await send(server, "/api/sessions", {
        headers: { origin: `http://127.0.0.1:${server.port + 1}` },
      });
      expect(otherPort.status).toBe(403);
      const fetchSite = await send(server, "/api/sessions", { headers: { "sec-fetch-site": "cross-site" } });
      expect(fetchSite.status).toBe(403);
      const own = await send(server, "/api/sessions", {
        headers: { origin: `http://127.0.0.1:${server.port}` },
      });
      expect(own.status).toBe(200);
    });

    it("every method but GET and HEAD", async () => {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const reply = await send(server, `/api/sessions/${store.ids.planted}`, { method });
        expect(reply.status, method).toBe(405);
      }
    });

    it("paths: a session is named by its key from the store, never by a path", async () => {
      for (const path of [
        "/api/sessions/..%2F..%2F..%2Fetc%2Fpasswd",
        `/api/sessions/${encodeURIComponent(store.paths.planted)}`,
        "/api/sessions/%2Fetc%2Fpasswd/export?format=md",
        "/../../etc/passwd",
        "/assets/../../package.json",
      ]) {
        const reply = await send(server, path);
        expect(reply.status, path).toBe(404);
        expect(reply.body).not.toContain("root:");
      }
    });
  });

  it("prints the token in the URL's fragment; the page and its assets hold no data and set no cookie", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
    const page = await send(server, "/", { token: false });
    expect(page.status).toBe(200);
    expect(page.headers["set-cookie"]).toBeUndefined();
    expect(page.body).not.toContain(PLANTED);
    // An older printed URL (`/?token=`) still opens the page (the page takes the token).
    const older = await send(server, `/?token=${server.token}`, { token: false });
    expect(older.status).toBe(200);
    expect(older.headers["set-cookie"]).toBeUndefined();
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["content-security-policy"]).toContain("trusted-types 'none'");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.body).not.toMatch(/<script>|\son[a-z]+=/);
    const script = /src="([^"]+\.js)"/.exec(page.body)?.[1] as string;
    const js = await send(server, script, { token: false });
    expect(js.status).toBe(200);
    expect(js.headers["set-cookie"]).toBeUndefined();
    expect(js.headers["content-type"]).toContain("javascript");
  });

  it("answers a session's files and a file's history; a relative path is refused", async () => {
    const files = JSON.parse((await send(server, `/api/sessions/${store.ids.reader}/files`)).body) as {
      files: { path: string; counts: Record<string, number> }[];
    };
    expect(files.files.map((f) => [f.path, f.counts])).toEqual([
      ["/home/dev/delta/src/app.ts", { read: 1, edit: 1, write: 0 }],
      ["/home/dev/delta/README.md", { read: 1, edit: 0, write: 0 }],
    ]);
    const history = JSON.parse(
      (await send(server, `/api/files?path=${encodeURIComponent("/home/dev/delta/src/app.ts")}`)).body,
    ) as { sessions: { key: string; touches: { action: string }[] }[] };
    expect(history.sessions.map((s) => [s.key, s.touches.map((t) => t.action)])).toEqual([
      [store.ids.writer, ["write"]],
      [store.ids.reader, ["read", "edit"]],
    ]);
    expect((await send(server, "/api/files?path=src/app.ts")).status).toBe(400);
  });

  it("compares two branches of a session (named, or the two latest); refuses half a pair and unknown entries", async () => {
    const named = JSON.parse(
      (await send(server, `/api/sessions/${store.ids.branched}/compare?left=b0000004&right=b0000006`)).body,
    ) as {
      ancestor: { id: string };
      left: { leaf: string; entries: { id: string }[] };
      right: { leaf: string };
    };
    expect([named.ancestor.id, named.left.leaf, named.right.leaf]).toEqual([
      "b0000002",
      "b0000004",
      "b0000006",
    ]);
    expect(named.left.entries.map((e) => e.id)).toEqual(["b0000003", "b0000004"]);
    const latest = JSON.parse((await send(server, `/api/sessions/${store.ids.branched}/compare`)).body);
    expect([latest.left.leaf, latest.right.leaf]).toEqual(["b0000006", "b0000004"]);
    expect((await send(server, `/api/sessions/${store.ids.branched}/compare?left=b0000004`)).status).toBe(
      400,
    );
    expect(
      (await send(server, `/api/sessions/${store.ids.branched}/compare?left=b0000004&right=nope`)).status,
    ).toBe(404);
  });

  it("lists every session with tokens and cost, a fork's copies counted once", async () => {
    const reply = await send(server, "/api/sessions");
    const { sessions } = JSON.parse(reply.body) as {
      sessions: { key: string; cost: number; parentKey: string | null }[];
    };
    // The 12 generated sessions and the 7 made by hand (test/store.ts).
    expect(sessions.length).toBe(19);
    const planted = sessions.find((s) => s.key === store.ids.planted);
    const fork = sessions.find((s) => s.key === store.ids.fork);
    expect(planted?.cost).toBeCloseTo(0.05, 9);
    expect(fork?.cost).toBeCloseTo(0.05, 9);
    expect(fork?.parentKey).toBe(store.ids.planted);
    expect(reply.headers["cache-control"]).toBe("no-store");
  });

  it("sends a session's v3 entries, and only the new ones to a page that has the rest", async () => {
    const full = JSON.parse((await send(server, `/api/sessions/${store.ids.branched}`)).body);
    expect(full.entries.map((e: { id: string }) => e.id)).toEqual([
      "b0000001",
      "b0000002",
      "b0000003",
      "b0000004",
      "b0000005",
      "b0000006",
    ]);
    expect(full.header.id).toBe(store.ids.branched);
    const rest = JSON.parse(
      (await send(server, `/api/sessions/${store.ids.branched}?after=4&last=b0000004`)).body,
    );
    expect(rest.from).toBe(4);
    expect(rest.entries.map((e: { id: string }) => e.id)).toEqual(["b0000005", "b0000006"]);
    const other = JSON.parse(
      (await send(server, `/api/sessions/${store.ids.branched}?after=4&last=zzz`)).body,
    );
    expect(other.from).toBe(0);
    expect(other.entries.length).toBe(6);
  });

  it("searches through the session database: the planted phrase at its entry", async () => {
    const reply = JSON.parse(
      (await send(server, `/api/search?q=${encodeURIComponent(`"${PLANTED}"`)}`)).body,
    );
    const keys = reply.sessions.map((s: { key: string }) => s.key).sort();
    expect(keys).toEqual([store.ids.planted, store.ids.fork].sort());
    const hit = reply.sessions[0].hits[0];
    expect(hit.entryId).toBe(store.entries.planted);
    expect(hit.snippet.text).toContain(PLANTED);
    expect((await send(server, `/api/search?q=${encodeURIComponent("re:(")}`)).status).toBe(400);
  });

  it("searches newest first when asked (as the page types): the same sessions, hits last first", async () => {
    const ask = async (q: string, extra: string) =>
      JSON.parse((await send(server, `/api/search?q=${encodeURIComponent(q)}${extra}`)).body) as {
        sessions: { key: string; hits: { line: number }[] }[];
      };
    const ranked = await ask(`"${PLANTED}"`, "");
    const newest = await ask(`"${PLANTED}"`, "&order=newest");
    expect(newest.sessions.map((s) => s.key).sort()).toEqual(ranked.sessions.map((s) => s.key).sort());
    // A short prefix matches most sessions: the same ones, each one's hits last first (the
    // order of sessions is the search package's, tested against its oracle there).
    const short = await ask("th", "&order=newest&limit=200");
    expect(short.sessions.length).toBeGreaterThan(1);
    const all = await ask("th", "&limit=200");
    expect(short.sessions.map((s) => s.key).sort()).toEqual(all.sessions.map((s) => s.key).sort());
    for (const s of short.sessions) {
      const lines = s.hits.map((h) => h.line);
      expect(lines).toEqual([...lines].sort((a, b) => b - a));
    }
  });

  it("usage: every chart's totals equal the database's stats (fork copies counted once)", async () => {
    const { store: view } = server.source as LocalSource;
    const stats = await view.exclusive(() => view.db.stats());
    for (const period of ["day", "week", "month"])
      for (const split of ["model", "project"]) {
        const chart = JSON.parse((await send(server, `/api/usage?period=${period}&split=${split}`)).body);
        expect(chart.totals.totalTokens).toBe(stats.totals.totalTokens);
        expect(chart.totals.records).toBe(stats.totals.records);
        expect(chart.totals.cost).toBeCloseTo(stats.totals.cost, 9);
        const sum = chart.series.reduce(
          (n: number, s: { tokens: number[] }) => n + s.tokens.reduce((a, b) => a + b, 0),
          0,
        );
        expect(sum).toBe(stats.totals.totalTokens);
      }
    expect((await send(server, "/api/usage?period=year")).status).toBe(400);
  });

  it("exports with the renderers `pi-session export` uses, as downloads", async () => {
    const md = await send(
      server,
      `/api/sessions/${store.ids.branched}/export?format=md&view=branch&leaf=b0000004`,
    );
    expect(md.status).toBe(200);
    expect(md.headers["content-disposition"]).toContain("attachment");
    const { session } = await loadSession(store.paths.branched);
    const expected = renderMarkdown(buildDocument(session, { view: "branch", leafId: "b0000004" }), {
      cutHint: "; `pi-session export --full` keeps them",
    });
    expect(md.body).toBe(expected);
    expect(md.body).toContain("left road");
    expect(md.body).not.toContain("right road");
    const html = await send(server, `/api/sessions/${store.ids.payload}/export?format=html`);
    expect(html.headers["content-type"]).toContain("text/html");
    expect(html.body).toContain("Content-Security-Policy");
    const jsonl = await send(server, `/api/sessions/${store.ids.branched}/export?format=jsonl&leaf=b0000004`);
    expect(jsonl.body.trim().split("\n").length).toBe(5);
    expect((await send(server, `/api/sessions/${store.ids.branched}/export?format=exe`)).status).toBe(400);
    expect(
      (await send(server, `/api/sessions/${store.ids.branched}/export?format=jsonl&view=context`)).status,
    ).toBe(400);
    expect((await send(server, `/api/sessions/${store.ids.branched}/export?leaf=nope`)).status).toBe(404);
  });

  it("tells listeners over server-sent events when a session grows", async () => {
    const events: string[] = [];
    const got = new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: server.port,
          // As the page's EventSource asks: the token as a parameter (it can set no header).
          path: `/api/events?token=${server.token}`,
          headers: { host: `127.0.0.1:${server.port}` },
        },
        (res) => {
          expect(res.headers["content-type"]).toContain("text/event-stream");
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            events.push(chunk);
            if (chunk.includes("event: hello"))
              store.append(store.paths.branched, assistant("b0000007", "b0000006", "More sea.", 170));
            if (chunk.includes("event: change") && chunk.includes(store.ids.branched)) {
              req.destroy();
              resolve();
            }
          });
        },
      );
      req.on("error", (e) => (e.message.includes("aborted") ? undefined : reject(e)));
      req.end();
    });
    await got;
    const rest = JSON.parse(
      (await send(server, `/api/sessions/${store.ids.branched}?after=6&last=b0000006`)).body,
    );
    expect(rest.entries.map((e: { id: string }) => e.id)).toEqual(["b0000007"]);
  });

  it("wrote nothing into the store (the test's own append aside)", () => {
    const after = snapshot(store.root);
    for (const [path, bytes] of before) {
      if (path === store.paths.branched) continue;
      expect(after.get(path), path).toBe(bytes);
    }
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  });
});
