/**
 * End-to-end tests of `pi-session serve --db`: the built binary serving a team's PostgreSQL
 * database (a throw-away cluster, docs/team.md's roles) that a generated store was synced into
 * (branches, a fork, a compaction, a name and a label, random sessions) gives, through its JSON
 * API, the same session list, the same sessions, the same search hits and the same usage as
 * `serve` over that store, and the totals of `stats --all --json --db`; with the reader role
 * (SELECT only); `--source` keeps a source's sessions and every row names its source; the
 * password is in nothing it prints or sends; a session appended to and a session added, then
 * synced, reach an open page's events and the API.
 * Build first (`pnpm build`).
 * @module-tag processes
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read the API's JSON.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Cluster, startCluster } from "../../../packages/postgres/src/testing/cluster.js";
import { assistant, makeStore, PLANTED, type TestStore, user } from "../../web/test/store.js";
import { CliHome, type Running, plain } from "./harness.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const PASSWORD = "Srv-s3cret-Pa55";
const ADA = "ada@laptop";
const BOB = "bob@desktop";

let cluster: Cluster;
let home: CliHome;
let store: TestStore;
let writerUrl: string;
let readerUrl: string;
/** The compaction session's file. */
let compacted: string;
const running: Running[] = [];

/** A server started with `args`, with its origin and the header that carries its token. */
interface Served {
  run: Running;
  origin: string;
  auth: Record<string, string>;
  /** Every body it answered (to look for the password in). */
  bodies: string[];
  text(path: string): Promise<string>;
  json(path: string): Promise<any>;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const run = home.spawn(["serve", ...args], { env: { PI_SESSION_SERVE_POLL_MS: "300", ...env } });
  running.push(run);
  const end = await run.waitForOutput("\n", 0, 120_000);
  const url = run.stdout.slice(0, end - 1);
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/);
  const origin = url.slice(0, url.indexOf("/#token="));
  const auth = { authorization: `Bearer ${url.slice(url.indexOf("/#token=") + "/#token=".length)}` };
  const bodies: string[] = [];
  const text = async (path: string) => {
    const res = await fetch(origin + path, { headers: auth });
    const body = await res.text();
    bodies.push(body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
    return body;
  };
  return { run, origin, auth, bodies, text, json: async (path) => JSON.parse(await text(path)) };
}

async function stop(served: Served): Promise<void> {
  served.run.child.kill("SIGTERM");
  expect(await served.run.exited()).toBe(0);
}

/** A list row without what only a database row has. */
const withoutSource = ({ source: _source, ...row }: any) => row;

/**
 * A ranked answer as both backends give it alike: its sessions and their hit counts (the rank,
 * ts_rank or BM25, orders them and picks which three hits a session shows).
 */
const rankedSessions = (answer: any) => answer.sessions.map((s: any) => `${s.key} ${s.hits.length}`).sort();

beforeAll(async () => {
  cluster = await startCluster();
  // docs/team.md's setup: the writer owns the database; the reader may only read.
  for (const sql of [
    "CREATE DATABASE team",
    `CREATE ROLE writer LOGIN PASSWORD '${PASSWORD}'`,
    `CREATE ROLE reader LOGIN PASSWORD '${PASSWORD}'`,
    "ALTER DATABASE team OWNER TO writer",
    "REVOKE ALL ON DATABASE team FROM PUBLIC",
    "GRANT CONNECT ON DATABASE team TO reader",
  ])
    cluster.psql(sql);
  for (const sql of [
    "GRANT USAGE ON SCHEMA public TO reader",
    "ALTER DEFAULT PRIVILEGES FOR ROLE writer IN SCHEMA public GRANT SELECT ON TABLES TO reader",
  ])
    cluster.psql(sql, "team");
  writerUrl = cluster.tcpUrl("writer", PASSWORD, "team");
  readerUrl = cluster.tcpUrl("reader", PASSWORD, "team");
  home = new CliHome("pi-session-serve-db-");
  // Branches, a fork, a name and a label, payloads, random sessions; and a compaction.
  store = makeStore(16);
  const dir = join(store.root, "--home-dev-delta--");
  mkdirSync(dir, { recursive: true });
  compacted = join(dir, "2026-01-11T09-00-00-000Z_0199dddd-0000-7000-8000-000000000001.jsonl");
  const entries = [
    {
      type: "session",
      version: 3,
      id: "0199dddd-0000-7000-8000-000000000001",
      timestamp: "2026-01-11T09:00:00.000Z",
      cwd: "/home/dev/delta",
    },
    user("d0000001", null, "a long talk about the harbour", 86_400 + 10),
    assistant("d0000002", "d0000001", "the harbour is deep", 86_400 + 20, 0.2),
    {
      type: "compaction",
      id: "d0000003",
      parentId: "d0000002",
      timestamp: "2026-01-11T09:01:00.000Z",
      summary: "we talked about the harbour",
      firstKeptEntryId: "d0000002",
      tokensBefore: 48213,
    },
    user("d0000004", "d0000003", "and after the compaction?", 86_400 + 70),
    assistant("d0000005", "d0000004", "the lighthouse", 86_400 + 80, 0.1),
  ];
  writeFileSync(compacted, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
  const sent = home.run(["sync", "--to", writerUrl, "--as", ADA, "--session-dir", store.root]);
  expect(sent.stderr).toBe("");
  expect(sent.code).toBe(0);
  // A second person's store.
  const bob = home.dir("bob-sessions", "--home-bob-web--");
  writeFileSync(
    join(bob, "2026-02-01T00-00-00-000Z_0199eeee-0000-7000-8000-000000000001.jsonl"),
    [
      {
        type: "session",
        version: 3,
        id: "0199eeee-0000-7000-8000-000000000001",
        timestamp: "2026-02-01T00:00:00.000Z",
        cwd: "/home/bob/web",
      },
      user("e0000001", null, "bob asks about the harbour", 2_000_000),
      assistant("e0000002", "e0000001", "bob's harbour answer", 2_000_010, 0.5),
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join(""),
  );
  const bobSent = home.run([
    "sync",
    "--to",
    writerUrl,
    "--as",
    BOB,
    "--session-dir",
    join(home.home, "bob-sessions"),
  ]);
  expect(bobSent.code).toBe(0);
});

afterAll(() => {
  for (const r of running) r.kill();
  store?.cleanup();
  home?.cleanup();
  cluster?.stop();
});

describe("serve --db", () => {
  it("answers as serve over the synced store: list, sessions, search, usage (the reader role)", async () => {
    const local = await serve(["--session-dir", store.root]);
    const remote = await serve(["--db", readerUrl, "--source", ADA]);
    try {
      const want = await local.json("/api/sessions");
      const got = await remote.json("/api/sessions");
      expect(got.served).toEqual({ kind: "database", location: expect.any(String), sources: [ADA] });
      expect(got.served.location).toMatch(/^postgresql:\/\/reader@127\.0\.0\.1:\d+\/team$/);
      expect(got.sessions.length).toBe(want.sessions.length);
      expect(got.sessions.length).toBeGreaterThan(16);
      for (const row of got.sessions) expect(row.source).toBe(ADA);
      // The same rows, but for what only the local store has: the secret marks (a team database
      // keeps none: null; the local scan's are {} when it found none) and the file identity
      // the local session cache is keyed by (ctime and inode).
      const localOnly = ({ secrets: _secrets, ctimeMs: _ctime, ino: _ino, ...row }: any) => row;
      expect(got.sessions.map((r: any) => localOnly(withoutSource(r)))).toEqual(want.sessions.map(localOnly));
      for (const row of got.sessions) expect(row.secrets).toBeNull();
      // Not vacuous: forks, names, costs.
      expect(got.sessions.some((r: any) => r.parentKey !== null)).toBe(true);
      expect(got.sessions.some((r: any) => r.name !== null)).toBe(true);
      expect(got.sessions.reduce((n: number, r: any) => n + r.cost, 0)).toBeGreaterThan(0);

      // Every session, whole: the same header and entries, as the local file gives them.
      for (const row of want.sessions) {
        const mine = await local.json(`/api/sessions/${encodeURIComponent(row.key)}`);
        const theirs = await remote.json(`/api/sessions/${encodeURIComponent(row.key)}`);
        expect(theirs.source).toBe(ADA);
        // `version` is the source's cache key: the local one carries the file's ctime and inode too.
        const { version: _mine, ...mineRest } = mine;
        const { version: _theirs, ...theirsRest } = withoutSource(theirs);
        expect(theirsRest, row.key).toEqual(mineRest);
        expect(String(theirs.version).split(":").slice(0, 2)).toEqual(
          String(mine.version).split(":").slice(0, 2),
        );
      }
      const compaction = await remote.json(`/api/sessions/0199dddd-0000-7000-8000-000000000001`);
      expect(compaction.entries.map((e: any) => e.type)).toContain("compaction");
      const branched = await remote.json(`/api/sessions/${store.ids.branched}`);
      expect(branched.entries.filter((e: any) => e.parentId === "b0000002")).toHaveLength(2);
      // An export is the same file.
      const exportPath = `/api/sessions/${store.ids.payload}/export?format=md&view=all-branches`;
      expect(await remote.text(exportPath)).toBe(await local.text(exportPath));

      // Search: the same sessions; newest first, the same hits in the same order.
      for (const q of [`"${PLANTED}"`, "road", "harbour", "re:left|right", "pwned -script"]) {
        const path = `/api/search?q=${encodeURIComponent(q)}&limit=200`;
        expect(rankedSessions(await remote.json(path)), q).toEqual(rankedSessions(await local.json(path)));
        const newest = `${path}&order=newest`;
        const mine = await local.json(newest);
        const theirs = await remote.json(newest);
        expect(theirs.sessions.map(withoutSource), `${q} newest`).toEqual(mine.sessions);
      }
      const planted = await remote.json(`/api/search?q=${encodeURIComponent(`"${PLANTED}"`)}`);
      expect(planted.sessions.map((s: any) => [s.key, s.source])).toEqual(
        expect.arrayContaining([[store.ids.planted, ADA]]),
      );
      expect((await fetch(`${remote.origin}/api/search?q=re:(`, { headers: remote.auth })).status).toBe(400);

      // Usage: every chart as the local app's, its totals `stats --all --json --db`'s.
      const stats = JSON.parse(
        home.run(["stats", "--all", "--json", "--db", readerUrl, "--source", ADA]).stdout,
      );
      const localStats = JSON.parse(
        home.run(["stats", "--all", "--json", "--session-dir", store.root]).stdout,
      );
      expect(stats.totals).toEqual(localStats.totals);
      for (const period of ["day", "week", "month"])
        for (const split of ["model", "project"]) {
          const path = `/api/usage?period=${period}&split=${split}`;
          const mine = await local.json(path);
          const theirs = await remote.json(path);
          expect(theirs.periods, path).toEqual(mine.periods);
          expect(
            theirs.series.map((s: any) => [s.key, s.tokens]),
            path,
          ).toEqual(mine.series.map((s: any) => [s.key, s.tokens]));
          const { cost, ...counts } = theirs.totals;
          expect({ ...counts, cost: Math.round(cost * 1e6) / 1e6 }, path).toEqual(stats.totals);
        }
      const info = await remote.json("/api/info");
      expect(info).toMatchObject({
        backend: expect.stringMatching(/^postgresql /),
        watch: "poll",
        sources: [ADA],
      });
    } finally {
      await stop(local);
      await stop(remote);
    }
    expect(remote.run.stderr).toMatch(
      /serving \d+ sessions from postgresql:\/\/reader@127\.0\.0\.1:\d+\/team \(ada@laptop\)/,
    );
    for (const text of [remote.run.stdout, remote.run.stderr, ...remote.bodies])
      expect(text).not.toContain(PASSWORD);
  });

  it("every source by default, each row naming its own; --source keeps one", async () => {
    const all = await serve(["--db"], { PI_SESSION_DATABASE_URL: readerUrl });
    const bob = await serve(["--db", readerUrl, "--source", `${BOB},nobody@nowhere`]);
    try {
      const rows = (await all.json("/api/sessions")).sessions;
      const bySource = new Map<string, number>();
      for (const r of rows) bySource.set(r.source, (bySource.get(r.source) ?? 0) + 1);
      expect([...bySource.keys()].sort()).toEqual([ADA, BOB]);
      expect(bySource.get(BOB)).toBe(1);
      const bobs = (await bob.json("/api/sessions")).sessions;
      expect(bobs.map((r: any) => [r.key, r.source, r.project])).toEqual([
        ["0199eeee-0000-7000-8000-000000000001", BOB, "/home/bob/web"],
      ]);
      const hits = await all.json(`/api/search?q=harbour&limit=50`);
      expect(hits.sessions.map((s: any) => s.source).sort()).toEqual([ADA, BOB]);
      const bobHits = await bob.json(`/api/search?q=harbour`);
      expect(bobHits.sessions.map((s: any) => s.source)).toEqual([BOB]);
      // Another source's session is not there to name.
      expect(
        (await fetch(`${bob.origin}/api/sessions/${store.ids.planted}`, { headers: bob.auth })).status,
      ).toBe(404);
      const usage = await bob.json("/api/usage?period=month&split=model");
      expect(usage.totals.cost).toBeCloseTo(0.5, 9);
      expect(plain(bob.run.stderr)).toContain("no sessions of source nobody@nowhere in the database (yet)");
      expect(plain(bob.run.stderr)).not.toContain(`source ${BOB}`);
    } finally {
      await stop(all);
      await stop(bob);
    }
    for (const text of [all.run.stdout, all.run.stderr, ...all.bodies]) expect(text).not.toContain(PASSWORD);
  });

  it("a second sync reaches an open server: its events name the session, the API has the new entry", async () => {
    const remote = await serve(["--db", readerUrl, "--source", ADA]);
    const events = await fetch(`${remote.origin}/api/events`, { headers: remote.auth });
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let stream = "";
    const waitFor = async (pattern: RegExp) => {
      const deadline = Date.now() + 60_000;
      while (!pattern.test(stream)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in events: ${stream}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`events ended: ${stream}`);
        stream += decoder.decode(value, { stream: true });
      }
    };
    try {
      await waitFor(/event: hello/);
      const before = await remote.json(`/api/sessions/${store.ids.planted}`);
      store.append(
        store.paths.planted,
        assistant("a0000099", "a0000004", "synced later: a zeppelin", 900, 0.07),
      );
      const id = "0199ffff-0000-7000-8000-000000000001";
      const dir = join(store.root, "--home-dev-epsilon--");
      mkdirSync(dir, { recursive: true });
      appendFileSync(
        join(dir, `2026-03-01T00-00-00-000Z_${id}.jsonl`),
        [
          {
            type: "session",
            version: 3,
            id,
            timestamp: "2026-03-01T00:00:00.000Z",
            cwd: "/home/dev/epsilon",
          },
          user("f0000001", null, "a brand new synced session", 5_000_000),
        ]
          .map((e) => `${JSON.stringify(e)}\n`)
          .join(""),
      );
      const again = home.run(["sync", "--to", writerUrl, "--as", ADA, "--session-dir", store.root, "--json"]);
      expect(JSON.parse(again.stdout)).toMatchObject({ filesSent: 1, filesAppended: 1 });
      await waitFor(new RegExp(`event: change\\ndata: [^\\n]*"${store.ids.planted}"`));
      // Each file is its own transaction: a poll between the two commits names one session in
      // one event and the other in the next.
      await waitFor(new RegExp(`event: change\\ndata: [^\\n]*"${id}"`));
      expect(stream).toContain(id);
      const after = await remote.json(
        `/api/sessions/${store.ids.planted}?after=${before.entryCount}&last=${before.entries.at(-1).id}`,
      );
      expect(after.from).toBe(before.entryCount);
      expect(after.entries.map((e: any) => e.id)).toEqual(["a0000099"]);
      const list = (await remote.json("/api/sessions")).sessions;
      expect(list.map((r: any) => r.key)).toContain(id);
      expect((await remote.json(`/api/search?q=zeppelin`)).sessions.map((s: any) => s.key)).toEqual([
        store.ids.planted,
      ]);
    } finally {
      await reader.cancel().catch(() => {});
      await stop(remote);
    }
  });

  it("refuses --source without --db; a wrong password is a clear error without it", () => {
    const r = home.run(["serve", "--source", ADA, "--session-dir", store.root]);
    expect(r.code).toBe(2);
    expect(plain(r.stderr)).toContain("--source filters a team database: give --db too");
    const wrong = "Wr0ng-Serve-xyzzy";
    const bad = home.run(["serve", "--db", cluster.tcpUrl("reader", wrong, "team")]);
    expect(bad.code).toBe(1);
    expect(plain(bad.stderr)).toContain("password authentication failed");
    expect(plain(bad.stderr)).toContain("postgresql://reader@127.0.0.1:");
    expect(bad.stdout + bad.stderr).not.toContain(wrong);
  });
});
