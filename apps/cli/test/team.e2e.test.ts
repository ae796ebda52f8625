/**
 * End-to-end tests of the team database from the command line: the built binary against a
 * throw-away PostgreSQL cluster (`@pi-session/postgres`'s test helper; Debian's `postgresql`
 * package). `sync --to` twice (the second sends nothing), `search --db` and `stats --all --db`
 * giving the local answers on the same store, `--source`, `--by source`, `--exclude`,
 * `--redact`, `sync --watch` picking up an append, a read-only role for the readers, and a
 * wrong password reported clearly without the password in any output.
 * Build first (`pnpm build`).
 * @module-tag processes
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Cluster, startCluster } from "../../../packages/postgres/src/testing/cluster.js";
import { CliHome, chat, line, message, plain } from "./harness.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let cluster: Cluster;
let home: CliHome;
/** A second person's machine. */
let bobHome: CliHome;
let appendTo: string;
let db: string;
const PASSWORD = "s3cret-Pa55word";
/** A fake Anthropic key in Anthropic's format (the shared detector checks providers' formats). */
const KEY = `sk-ant-api03-${"abcdefghijklmnopqrstuvwxyz0123456789".padEnd(93, "q")}AA`;

function assistant(id: string, parentId: string, time: string, text: string, model: string, cost: number) {
  const [provider, name] = model.split("/");
  return message(id, parentId, time, {
    role: "assistant",
    content: [{ type: "text", text }],
    provider,
    model: name,
    stopReason: "stop",
    usage: {
      input: 100,
      output: 20,
      cacheRead: 5,
      cacheWrite: 0,
      totalTokens: 125,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
    },
  });
}

beforeAll(async () => {
  cluster = await startCluster();
  // docs/team.md's setup, as written there: the writer owns the database (its first sync
  // creates the schema); the reader may only read, granted before any table exists.
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
  db = cluster.tcpUrl("writer", PASSWORD, "team");
  home = new CliHome("pi-session-team-");
  const web = home.dir("work", "web");
  const api = home.dir("work", "api");
  const secret = home.dir("work", "secret");
  home.write({
    id: "019d0000-0000-7000-8000-000000000001",
    cwd: web,
    created: "2026-03-01T10:00:00.000Z",
    entries: [
      message("a0000001", null, "2026-03-01T10:01:00.000Z", {
        role: "user",
        content: "fix the parser timeout",
      }),
      assistant(
        "a0000002",
        "a0000001",
        "2026-03-01T10:02:00.000Z",
        "the parser timeout is in auth.ts",
        "anthropic/claude-sonnet-4-5",
        0.25,
      ),
      message("a0000003", "a0000002", "2026-03-01T10:03:00.000Z", {
        role: "user",
        content: "and the 検索 test",
      }),
      assistant(
        "a0000004",
        "a0000003",
        "2026-03-01T10:04:00.000Z",
        `done with the parser, key ${KEY}`,
        "openai/gpt-5",
        0.5,
      ),
    ],
  });
  appendTo = home.write({
    id: "019d0000-0000-7000-8000-000000000002",
    cwd: api,
    created: "2026-03-02T10:00:00.000Z",
    entries: chat("b", "2026-03-02T10:00:00.000Z", 3, (i) => `api message ${i} about the parser`),
  });
  home.write({
    id: "019d0000-0000-7000-8000-000000000003",
    cwd: secret,
    created: "2026-03-03T10:00:00.000Z",
    entries: [
      message("c0000001", null, "2026-03-03T10:01:00.000Z", {
        role: "user",
        content: "the private parser plan",
      }),
      assistant(
        "c0000002",
        "c0000001",
        "2026-03-03T10:02:00.000Z",
        `key ${KEY} noted`,
        "anthropic/claude-sonnet-4-5",
        1,
      ),
    ],
  });
  bobHome = new CliHome("pi-session-team-bob-");
  const bobWeb = bobHome.dir("work", "web");
  bobHome.write({
    id: "019d0000-0000-7000-8000-000000000011",
    cwd: bobWeb,
    created: "2026-03-04T10:00:00.000Z",
    entries: [
      message("d0000001", null, "2026-03-04T10:01:00.000Z", {
        role: "user",
        content: "bob's parser question",
      }),
      assistant(
        "d0000002",
        "d0000001",
        "2026-03-04T10:02:00.000Z",
        `use ${KEY} for the parser`,
        "anthropic/claude-sonnet-4-5",
        0.75,
      ),
    ],
  });
  bobHome.write({
    id: "019d0000-0000-7000-8000-000000000012",
    cwd: bobHome.dir("work", "secret"),
    created: "2026-03-04T11:00:00.000Z",
    entries: [
      message("e0000001", null, "2026-03-04T11:01:00.000Z", {
        role: "user",
        content: "bob's private parser",
      }),
      assistant(
        "e0000002",
        "e0000001",
        "2026-03-04T11:02:00.000Z",
        "noted",
        "anthropic/claude-sonnet-4-5",
        2,
      ),
    ],
  });
});

afterAll(() => {
  home?.cleanup();
  bobHome?.cleanup();
  cluster?.stop();
});

const json = (stdout: string): any => JSON.parse(stdout);

/** A search's answer without what may differ by backend (rank scores; the order of ranked hits). */
function hitsOf(result: any) {
  return result.sessions
    .map((s: any) => ({
      id: s.id,
      path: s.path,
      cwd: s.cwd,
      name: s.name,
      firstMessage: s.firstMessage,
      created: s.created,
      hits: s.hits.map((h: any) => ({ ...h, score: undefined })).sort((a: any, b: any) => a.line - b.line),
    }))
    .sort((a: any, b: any) => a.id.localeCompare(b.id));
}

describe("sync --to", () => {
  it("sends the store once, then nothing; says so in one line without the password", () => {
    const first = home.run(["sync", "--to", db, "--as", "ada@laptop", "--json"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const stats = json(first.stdout);
    expect(stats).toMatchObject({ source: "ada@laptop", filesSeen: 3, filesSent: 3, filesAppended: 0 });
    expect(stats.entriesSent).toBe(12);
    expect(stats.database).not.toContain(PASSWORD);
    const again = home.run(["sync", "--to", db, "--as", "ada@laptop"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`sent 0 sessions, 0 entries to ${stats.database} as ada@laptop\n`);
    expect(again.stdout + again.stderr).not.toContain(PASSWORD);
    const quiet = json(home.run(["sync", "--to", db, "--as", "ada@laptop", "--json"]).stdout);
    expect(quiet).toMatchObject({
      filesSent: 0,
      filesAppended: 0,
      entriesSent: 0,
      rowsSent: 0,
      unchanged: 3,
    });
  });

  it("takes the URL from PI_SESSION_DATABASE_URL, and a second source with --exclude and --redact", () => {
    const r = bobHome.run(["sync", "--as", "bob@desktop", "--exclude", "work/secret", "--redact"], {
      env: { PI_SESSION_DATABASE_URL: db },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^sent 1 session, 2 entries to postgresql:\/\/writer@127\.0\.0\.1:\d+\/team as bob@desktop \(1 excluded\)\n$/,
    );
  });

  it("without a database named anywhere is a usage error", () => {
    const r = home.run(["sync"]);
    expect(r.code).toBe(2);
    expect(plain(r.stderr)).toContain("sync needs a database: --to <postgresql://user@host/db>");
  });

  it("a wrong password is a clear error that does not show it", () => {
    const wrong = "Wr0ng-Pa55-xyzzy";
    const r = home.run(["sync", "--to", cluster.tcpUrl("writer", wrong, "team")]);
    expect(r.code).toBe(1);
    const out = plain(r.stdout + r.stderr);
    expect(out).toContain("password authentication failed for user");
    expect(out).toContain("postgresql://writer@127.0.0.1:");
    expect(out).toContain("Check the user and password");
    expect(out).not.toContain(wrong);
    const s = home.run(["search", "parser", "--db", cluster.tcpUrl("reader", wrong, "team")]);
    expect(s.code).toBe(1);
    expect(plain(s.stderr)).toContain("password authentication failed");
    expect(s.stdout + s.stderr).not.toContain(wrong);
  });
});

describe("readers over the team database", () => {
  let readerUrl: string;
  beforeAll(() => {
    readerUrl = cluster.tcpUrl("reader", PASSWORD, "team");
  });

  it("search --db --source gives the local answer (human and --json)", () => {
    for (const query of ["parser", '"auth.ts"', "検索", "parser -timeout", "re:api message [0-9]"]) {
      const local = home.run(["search", query, "--json"]);
      const remote = home.run(["search", query, "--json", "--db", readerUrl, "--source", "ada@laptop"]);
      expect(remote.stderr, query).toBe("");
      expect(remote.code, query).toBe(local.code);
      expect(hitsOf(json(remote.stdout)), query).toEqual(hitsOf(json(local.stdout)));
      for (const s of json(remote.stdout).sessions) expect(s.source).toBe("ada@laptop");
    }
    // Without words the order is newest first on both: the human output is the same.
    const local = home.run(["search", '"parser"']);
    const remote = home.run(["search", '"parser"', "--db", readerUrl, "--source", "ada@laptop"]);
    expect(plain(remote.stdout)).toBe(plain(local.stdout));
  });

  it("search --db over every source, and --source filters", () => {
    // Bob's private project stayed home (--exclude); ada's is there.
    const all = json(home.run(["search", '"private parser"', "--json", "--db", readerUrl]).stdout);
    expect(all.sessions.map((s: any) => s.source)).toEqual(["ada@laptop"]);
    const both = json(home.run(["search", "parser", "--json", "--db", readerUrl]).stdout);
    expect([...new Set(both.sessions.map((s: any) => s.source))].sort()).toEqual([
      "ada@laptop",
      "bob@desktop",
    ]);
    const bob = home.run(["search", "parser", "--json", "--db", readerUrl, "--source", "bob@desktop"]);
    expect(json(bob.stdout).sessions.map((s: any) => s.id)).toEqual(["019d0000-0000-7000-8000-000000000011"]);
    const many = home.run([
      "search",
      "parser",
      "--json",
      "--db",
      readerUrl,
      "--source",
      "bob@desktop,ada@laptop",
    ]);
    expect(json(many.stdout).sessions.length).toBe(both.sessions.length);
    const none = home.run(["search", "parser", "--db", readerUrl, "--source", "nobody@nowhere"]);
    expect(none.code).toBe(1);
    expect(plain(none.stderr)).toContain("no match for");
    expect(none.stderr).not.toContain(PASSWORD);
  });

  it("redacted secrets did not leave with --redact", () => {
    // Ada's two sessions with a key (not redacted); bob's went redacted.
    const found = json(home.run(["search", '"sk-ant-api03"', "--json", "--db", readerUrl]).stdout);
    expect(found.sessions.map((s: any) => `${s.source} ${s.id}`).sort()).toEqual([
      "ada@laptop 019d0000-0000-7000-8000-000000000001",
      "ada@laptop 019d0000-0000-7000-8000-000000000003",
    ]);
    const bob = json(
      home.run(["search", "parser", "--json", "--db", readerUrl, "--source", "bob@desktop"]).stdout,
    );
    expect(bob.sessions).toHaveLength(1);
    expect(JSON.stringify(bob)).not.toContain(KEY.slice(13));
  });

  it("stats --all --db --source gives the local report (human and --json)", () => {
    for (const by of [
      [],
      ["--by", "model"],
      ["--by", "day", "--breakdown"],
      ["--by", "project"],
      ["--by", "session"],
    ]) {
      const local = home.run(["stats", "--all", "--json", ...by]);
      const remote = home.run([
        "stats",
        "--all",
        "--json",
        "--db",
        readerUrl,
        "--source",
        "ada@laptop",
        ...by,
      ]);
      expect(remote.stderr).toBe("");
      expect(json(remote.stdout), by.join(" ")).toEqual(json(local.stdout));
      const localText = home.run(["stats", "--all", ...by]);
      const remoteText = home.run(["stats", "--all", "--db", readerUrl, "--source", "ada@laptop", ...by]);
      expect(plain(remoteText.stdout)).toBe(plain(localText.stdout));
    }
  });

  it("stats --by source: a row per person or machine", () => {
    const r = home.run(["stats", "--all", "--json", "--db", readerUrl, "--by", "source"]);
    expect(r.code).toBe(0);
    const report = json(r.stdout);
    expect(report.by).toBe("source");
    expect(report.rows.map((row: any) => [row.key, row.cost])).toEqual([
      ["ada@laptop", 1.75],
      ["bob@desktop", 0.75],
    ]);
    const text = plain(home.run(["stats", "--all", "--db", readerUrl, "--by", "source"]).stdout);
    expect(text).toMatch(/^source\s+input/m);
    expect(text).toMatch(/^ada@laptop\s/m);
    expect(text).toMatch(/^total\s/m);
  });

  it("the reader role cannot write: sync as the reader fails, and says why", () => {
    const r = home.run(["sync", "--to", readerUrl, "--as", "mallory@nowhere"]);
    expect(r.code).toBe(1);
    expect(plain(r.stderr)).toMatch(/permission denied/);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it("usage errors: --by source or --source without --db, --db without --all", () => {
    expect(home.run(["stats", "--all", "--by", "source"]).code).toBe(2);
    expect(home.run(["search", "parser", "--source", "x"]).code).toBe(2);
    const r = home.run(["stats", "--db", readerUrl]);
    expect(r.code).toBe(2);
    expect(plain(r.stderr)).toContain("--db needs --all");
  });
});

describe("sync --watch", () => {
  it("sends an append as it is written, and stops on SIGTERM", async () => {
    const watching = home.spawn(["sync", "--to", db, "--as", "ada@laptop", "--watch"], {
      env: { PI_SESSION_SYNC_POLL_MS: "300" },
    });
    try {
      const at = await watching.waitForOutput("sent 0 sessions, 0 entries");
      appendFileSync(
        appendTo,
        line(
          message("b9000001", "b0000006", "2026-03-02T11:00:00.000Z", {
            role: "user",
            content: "a watched zebra",
          }),
        ),
      );
      await watching.waitForOutput(/sent 1 session, 1 entry to \S+ as ada@laptop\n/, at);
      watching.child.kill("SIGTERM");
      expect(await watching.exited()).toBe(0);
    } finally {
      watching.kill();
    }
    const found = json(home.run(["search", "zebra", "--json", "--db", db, "--source", "ada@laptop"]).stdout);
    expect(found.sessions.map((s: any) => s.id)).toEqual(["019d0000-0000-7000-8000-000000000002"]);
  });
});
