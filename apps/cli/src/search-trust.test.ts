/**
 * `search` and `stats` never answer wrong (issue 37), in-process through `runCli`: a session
 * database whose pages are damaged where only the query reads them (the word index, the usage
 * totals) answers as `--no-index` does, after a rebuild it announces; a file the index cannot
 * read is reported with exit 3 and an `unreadable` key, as every batch does (finding 12); a
 * catastrophic `re:` pattern returns and the next search answers normally; a search stopped by
 * its time limit says so and never says "no match" for what it did not check; a regex is
 * echoed as typed.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath } from "@pi-session/search";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured } from "../test/in-process.js";

let home: string;
let root: string;
let cache: string;

const WORDS = ["parser", "timeout", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "auth.ts", "zebra", "fix"];

/** Thirty small sessions, each with a user message, an answer with usage, and a tool result. */
function writeStore(): void {
  for (let n = 0; n < 30; n++) {
    const dir = join(root, `--home-p${n % 3}--`);
    mkdirSync(dir, { recursive: true });
    const id = `0199${String(n).padStart(4, "0")}-0000-7000-8000-000000000000`;
    const t = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, n, s)).toISOString();
    const text = (k: number) => `${WORDS[(n + k) % WORDS.length]} ${WORDS[(n * 7 + k) % WORDS.length]} b`;
    const lines = [
      { type: "session", version: 3, id, timestamp: t(0), cwd: `/home/p${n % 3}` },
      {
        type: "message",
        id: `u${n}`,
        parentId: null,
        timestamp: t(1),
        message: { role: "user", content: text(0), timestamp: Date.parse(t(1)) },
      },
      {
        type: "message",
        id: `a${n}`,
        parentId: `u${n}`,
        timestamp: t(2),
        message: {
          role: "assistant",
          provider: "anthropic",
          model: "claude",
          content: [{ type: "text", text: text(1) }],
          usage: {
            input: n,
            output: 2,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: n + 2,
            cost: { total: n / 100 },
          },
          stopReason: "stop",
          timestamp: Date.parse(t(2)),
        },
      },
    ];
    writeFileSync(
      join(dir, `${t(0).replace(/[:.]/g, "-")}_${id}.jsonl`),
      lines.map((l) => `${JSON.stringify(l)}\n`).join(""),
    );
  }
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env = { XDG_CACHE_HOME: cache, HOME: home, TZ: "UTC" };
  const r = await runCaptured([...args, "--session-dir", root], { env, cwd: home });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "pi-session-trust-"));
  root = join(home, "sessions");
  cache = join(home, "cache");
  writeStore();
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** A constant: this repository's Node types predate `node:sqlite`. */
const NODE_SQLITE = "node:sqlite";

/** Overwrites the root page of `table` in the database file with zeros (the WAL folded in first). */
async function damage(table: string): Promise<void> {
  const { DatabaseSync } = (await import(NODE_SQLITE)) as any;
  const path = databasePath(join(cache, "pi-session"), root);
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pageSize = Number((db.prepare("PRAGMA page_size").get() as any).page_size);
  const page = Number(
    (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(table) as any).rootpage,
  );
  db.close();
  const { openSync, writeSync, closeSync } = await import("node:fs");
  const fd = openSync(path, "r+");
  writeSync(fd, new Uint8Array(pageSize), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
}

describe("damage found while the query runs", () => {
  it("search: rebuilt before the answer, which equals --no-index's (finding 1)", async () => {
    const want = await run(["search", "parser", "--json", "--no-index"]);
    expect(want.code).toBe(0);
    expect(JSON.parse(want.out).sessions.length).toBeGreaterThan(3);
    expect((await run(["search", "parser", "--json"])).out).toBe(want.out);
    // The word index's root page: the sync does not read it, the search does.
    await damage("words_data");
    const got = await run(["search", "parser", "--json"]);
    expect(got.err).toMatch(/is damaged .*rebuilding it from the session files/);
    expect(got.code).toBe(0);
    expect(got.out).toBe(want.out);
  });

  it("stats: rebuilt before the answer, which equals a fresh database's (finding 1)", async () => {
    const want = await run(["stats", "--all", "--by", "session", "--json"]);
    expect(want.code).toBe(0);
    expect(JSON.parse(want.out).sessions).toBe(30);
    await damage("usage_totals");
    const got = await run(["stats", "--all", "--by", "session", "--json"]);
    expect(got.err).toMatch(/is damaged .*rebuilding it/);
    expect(got.code).toBe(0);
    expect(got.out).toBe(want.out);
  });
});

describe("hostile regexes", () => {
  it("re:(.*)*b on 30 sessions returns, answers as re:b, and a plain search after it answers", async () => {
    const hostile = await run(["search", "re:(.*)*b", "--json", "--limit", "100"]);
    const simple = await run(["search", "re:b", "--json", "--limit", "100"]);
    expect(hostile.code).toBe(0);
    const ids = (r: { out: string }) =>
      JSON.parse(r.out)
        .sessions.map((s: any) => s.id)
        .sort();
    expect(ids(hostile)).toEqual(ids(simple));
    expect(ids(hostile)).toHaveLength(30);
    const plain = await run(["search", "zebra", "--json"]);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.out).sessions.length).toBeGreaterThan(0);
  });

  it("a search stopped by its time limit says so, in --json too, and does not say no match", async () => {
    const r = await run(["search", "re:zz\\wq", "--time-limit", "0.000001"]);
    expect(r.err).toMatch(/stopped at its time limit .* after checking 0 candidate entries/);
    expect(r.err).not.toMatch(/no match for `re:zz\\wq` in \//);
    expect(r.err).toContain("no match for `re:zz\\wq` in the part of");
    expect(r.code).toBe(1);
    const j = await run(["search", "re:b", "--time-limit", "0.000001", "--json"]);
    expect(JSON.parse(j.out).cut).toEqual({ timeLimitMs: 0.001, checked: 0 });
  });

  it("echoes a regex as typed (no doubled backslashes); refuses a backreference clearly", async () => {
    const r = await run(["search", "re:zz\\wq"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("no match for `re:zz\\wq` in ");
    const bad = await run(["search", "re:(a)\\1"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/backreferences are not supported/);
  });
});

describe("files the index cannot read (finding 12)", () => {
  it("search reports each, lists them under `unreadable` in --json and exits 3, as stats does", async () => {
    const link = join(root, "--home-p0--", "2026-03-02T00-00-00-000Z_dangling.jsonl");
    symlinkSync(join(root, "nowhere"), link);
    try {
      const r = await run(["search", "parser", "--json"]);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`${link}: cannot read: no such file or directory (ENOENT); skipped`);
      const out = JSON.parse(r.out);
      expect(out.sessions.length).toBeGreaterThan(0);
      expect(out.unreadable).toEqual([
        { path: link, code: "ENOENT", reason: "no such file or directory (ENOENT)" },
      ]);
      expect((await run(["search", "parser"])).code).toBe(3);
      const none = await run(["search", "qqqqqqq"]);
      expect(none.code).toBe(3);
      expect(none.err).toContain("but for the files that could not be read");
      const stats = await run(["stats", "--all", "--json"]);
      expect(stats.code).toBe(3);
      expect(JSON.parse(stats.out).unreadable.map((u: any) => u.code)).toEqual(["ENOENT"]);
    } finally {
      rmSync(link);
    }
  });
});
