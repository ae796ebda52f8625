/**
 * Bad parameters get a 4xx, never a 500 (issue 37, finding 9): every parameter of every API
 * route is sent each bad value of its kind (a fraction, a negative, a huge or non-finite
 * number, a word not in the list, a flag that is not 0 or 1), given twice, beside a parameter
 * the route does not take, and as a range that ends before it starts; session keys with a
 * malformed `%`. Each answer is a 4xx with a JSON `error`, and the same routes answer 200 to
 * good values (so the refusals are not the server refusing everything). A property test then
 * sends random names and values to every route: never a 5xx.
 */
import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStore, type TestStore } from "../test/store.js";
import { type RunningServer, startServer } from "./server.js";

interface Reply {
  status: number;
  body: string;
}

function get(server: RunningServer, path: string): Promise<Reply> {
  const auth = `${path.includes("?") ? "&" : "?"}token=${server.token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: `${path}${auth}`,
        headers: { host: `127.0.0.1:${server.port}` },
      },
      (res) => {
        // The event stream stays open: its status is all that is needed.
        if (String(res.headers["content-type"]).startsWith("text/event-stream")) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, body: "" });
          return;
        }
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The kinds of values a parameter takes, with values of that kind that are wrong. */
const BAD: Record<string, string[]> = {
  count: ["1.5", "-1", "NaN", "Infinity", "1e3", "abc", "99999999999999999999", " 1", "0x10", "１"],
  date: ["1.5", "NaN", "-Infinity", "1e20", "9000000000000000", "-9000000000000000", "yesterday"],
  limit: ["0", "201", "-5", "1.5", "NaN", "1e2", "twenty"],
  flag: ["2", "true", "yes", "-1", "on", "01"],
  format: ["pdf", "MD", "md ", "md,html"],
  view: ["tree", "BRANCH", "branch,context"],
  period: ["year", "Day", "day,week"],
  split: ["source", "MODEL"],
  order: ["oldest", "NEWEST"],
  role: ["admin", "user,", ",", "user,,tool", "User"],
};

interface Route {
  name: string;
  path: () => string;
  /** Good values (answered 200). */
  good: Record<string, string>;
  /** Each parameter and the kind of its values. */
  params: Record<string, keyof typeof BAD | "text">;
}

describe("serve's API refuses bad parameters with a 4xx", () => {
  let store: TestStore;
  let server: RunningServer;
  let key: string;
  let leaf: string;
  const routes: Route[] = [];

  beforeAll(async () => {
    store = makeStore(6);
    server = await startServer({ root: store.root, persistent: false, pollMs: 60_000, searchThreads: 0 });
    // After the first build: while it runs, a row whose file is being indexed leaves the list.
    await server.source.ready;
    const row = server.source.sessions().find((r) => r.entryCount > 2);
    key = encodeURIComponent(row?.key as string);
    const session = await get(server, `/api/sessions/${key}`);
    const entries = JSON.parse(session.body).entries as { id: string }[];
    leaf = (entries[1] as { id: string }).id;
    routes.push(
      { name: "info", path: () => "/api/info", good: {}, params: {} },
      { name: "sessions", path: () => "/api/sessions", good: {}, params: {} },
      {
        name: "session",
        path: () => `/api/sessions/${key}`,
        good: { after: "1", last: (entries[0] as { id: string }).id },
        params: { after: "count", last: "text" },
      },
      {
        name: "export",
        path: () => `/api/sessions/${key}/export`,
        good: { format: "md", view: "branch", leaf },
        params: { format: "format", view: "view", leaf: "text" },
      },
      { name: "resume", path: () => `/api/sessions/${key}/resume`, good: {}, params: {} },
      {
        name: "search",
        path: () => "/api/search",
        good: {
          q: "zebra",
          since: "0",
          until: "1900000000000",
          role: "user,assistant",
          limit: "5",
          named: "0",
          errored: "0",
          thinking: "1",
          toolOutput: "1",
          allBranches: "0",
          order: "newest",
        },
        params: {
          q: "text",
          project: "text",
          since: "date",
          until: "date",
          role: "role",
          tool: "text",
          model: "text",
          file: "text",
          named: "flag",
          errored: "flag",
          limit: "limit",
          thinking: "flag",
          toolOutput: "flag",
          allBranches: "flag",
          order: "order",
        },
      },
      {
        name: "usage",
        path: () => "/api/usage",
        good: { period: "week", split: "project" },
        params: { period: "period", split: "split" },
      },
      { name: "events", path: () => "/api/events", good: {}, params: {} },
    );
  });

  afterAll(async () => {
    await server?.close();
    store?.cleanup();
  });

  const query = (values: Record<string, string>) => new URLSearchParams(values).toString();
  const expectRefused = (reply: Reply, what: string) => {
    expect(reply.status, `${what}: ${reply.body}`).toBeGreaterThanOrEqual(400);
    expect(reply.status, `${what}: ${reply.body}`).toBeLessThan(500);
    expect(JSON.parse(reply.body).error, what).toEqual(expect.any(String));
  };

  it("answers 200 to good values of every route", async () => {
    for (const route of routes) {
      const reply = await get(server, `${route.path()}?${query(route.good)}`);
      expect(reply.status, `${route.name}: ${reply.body}`).toBe(200);
    }
  });

  it("refuses each bad value of each parameter with a 400", async () => {
    let tried = 0;
    let expected = 0;
    for (const route of routes)
      for (const kind of Object.values(route.params))
        expected += kind === "text" ? 0 : (BAD[kind]?.length ?? 0);
    for (const route of routes)
      for (const [name, kind] of Object.entries(route.params)) {
        if (kind === "text") continue;
        for (const bad of BAD[kind] as string[]) {
          const what = `${route.name} ${name}=${JSON.stringify(bad)}`;
          const reply = await get(server, `${route.path()}?${query({ ...route.good, [name]: bad })}`);
          expectRefused(reply, what);
          expect(reply.status, what).toBe(400);
          tried++;
        }
      }
    expect(tried).toBe(expected);
    expect(tried).toBeGreaterThanOrEqual(80);
  });

  it("refuses a parameter given twice and one the route does not take", async () => {
    for (const route of routes) {
      const unknown = await get(server, `${route.path()}?${query(route.good)}&bogus=1`);
      expectRefused(unknown, `${route.name} bogus=1`);
      expect(JSON.parse(unknown.body).error).toContain('"bogus"');
      for (const [name, value] of Object.entries({ ...route.good, token: server.token })) {
        const twice = await get(server, `${route.path()}?${query(route.good)}&${query({ [name]: value })}`);
        expectRefused(twice, `${route.name} ${name} twice`);
        expect(JSON.parse(twice.body).error).toBe(`${name} is given more than once`);
      }
    }
  });

  it("refuses a range that ends before it starts, and the context as JSONL", async () => {
    const range = await get(server, "/api/search?q=zebra&since=2000&until=1000");
    expectRefused(range, "since after until");
    const jsonl = await get(server, `/api/sessions/${key}/export?format=jsonl&view=context`);
    expectRefused(jsonl, "context as jsonl");
  });

  it("refuses a session key with a malformed %, and names nothing that is not there", async () => {
    for (const path of [
      "/api/sessions/%ZZ",
      "/api/sessions/%E0%A4%A",
      "/api/sessions/%",
      "/api/sessions/%ZZ/export",
      "/api/sessions/nosuch",
      "/api/sessions/nosuch/export",
      `/api/sessions/${key}/export/more`,
      "/api/nothing",
    ]) {
      const reply = await get(server, path);
      expectRefused(reply, path);
    }
    expect((await get(server, "/api/sessions/%ZZ")).status).toBe(400);
    expect((await get(server, "/api/sessions/nosuch")).status).toBe(404);
  });

  it("never answers 5xx to random parameters on any route", async () => {
    const names = fc.oneof(
      fc.constantFrom(
        "after",
        "last",
        "format",
        "view",
        "leaf",
        "q",
        "since",
        "until",
        "role",
        "limit",
        "order",
      ),
      fc.constantFrom("after", "limit", "since"),
      fc.constantFrom("named", "thinking", "period", "split", "token", "", "__proto__", "constructor"),
      fc.string({ maxLength: 8 }),
    );
    const values = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("1", "0", "-0", "1.5", "1e400", "%", "%ZZ", "\u0000", "\ud800", "md", "branch", "day"),
      fc.integer().map(String),
      fc.double().map(String),
    );
    // A session key as typed in a path: the real one, or raw text with stray `%`s.
    const keys = fc.oneof(
      fc.constant(undefined),
      fc.stringMatching(/^[%A-Za-z0-9~.-]{0,6}$/),
      fc.constantFrom("%", "%E0%A4%A", "%C0%AF", "..", "%2e%2e"),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.tuple(names, values), { maxLength: 5 }),
        keys,
        async (at, pairs, raw) => {
          const route = routes[at] as Route;
          const search = new URLSearchParams();
          for (const [name, value] of pairs) search.append(name, value);
          const path = raw === undefined || raw === "" ? route.path() : route.path().replace(key, raw);
          const reply = await get(server, `${path}?${search.toString()}`);
          expect(reply.status, `${path}?${search}: ${reply.body}`).toBeLessThan(500);
        },
      ),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 200) },
    );
  });
});
