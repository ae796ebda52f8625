/**
 * End-to-end tests of `pi-session stats` as a report: the built binary on a store written here
 * (a named session, its fork, an old session of another project, unpriced usage), grouped by
 * day, week, month, session and project with `--breakdown`, `--since/--until`, `--timezone`,
 * footers that count what the report covers, costs to the cent and to 1e-6, usage errors, and
 * tables fitted to a pseudo-terminal's width (util-linux `script`) but whole on a pipe.
 * Build first (`pnpm build`).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CliHome, dirFor, line, plain } from "./harness.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

let home: CliHome;
let web: { cwd: string; dir: string };
let parentFile: string;

const PARENT = "019c0000-0000-7000-8000-000000000001";
const FORK = "019c0000-0000-7000-8000-000000000002";
const OLD = "019c0000-0000-7000-8000-000000000003";

function assistant(
  id: string,
  parentId: string | null,
  time: string,
  model: string,
  usage: { input: number; output: number; cacheRead?: number; cost: number },
) {
  const [provider, name] = model.split("/");
  return {
    type: "message",
    id,
    parentId,
    timestamp: time,
    message: {
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      provider,
      model: name,
      stopReason: "stop",
      timestamp: Date.parse(time),
      usage: {
        input: usage.input,
        output: usage.output,
        cacheRead: usage.cacheRead ?? 0,
        cacheWrite: 0,
        totalTokens: usage.input + usage.output + (usage.cacheRead ?? 0),
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: usage.cost },
      },
    },
  };
}

const header = (id: string, time: string, cwd: string, extra: Record<string, unknown> = {}) => ({
  type: "session",
  version: 3,
  id,
  timestamp: time,
  cwd,
  ...extra,
});

const SONNET = "anthropic/claude-sonnet-4-5";
const GPT = "openai/gpt-5";

beforeAll(() => {
  home = new CliHome("pi-session-stats-");
  const project = (name: string) => {
    const cwd = home.dir("work", name);
    const dir = join(home.sessions, dirFor(cwd));
    mkdirSync(dir, { recursive: true });
    return { cwd, dir };
  };
  web = project("web");
  const other = project("other");
  parentFile = join(web.dir, `2026-03-01T20-00-00-000Z_${PARENT}.jsonl`);
  const parentEntries = [
    assistant("a1", null, "2026-03-01T23:30:00.000Z", SONNET, { input: 1000, output: 100, cost: 0.1 }),
    assistant("a2", "a1", "2026-03-03T10:00:00.000Z", GPT, { input: 2000, output: 200, cost: 0.2 }),
    {
      type: "session_info",
      id: "n1",
      parentId: "a2",
      timestamp: "2026-03-03T10:01:00.000Z",
      name: "upload limits",
    },
    assistant("a3", "n1", "2026-03-10T10:00:00.000Z", SONNET, { input: 3000, output: 300, cost: 0.3 }),
    // Unpriced: a provider that reports no cost.
    assistant("a4", "a3", "2026-04-02T10:00:00.000Z", "local/llama", { input: 5000, output: 500, cost: 0 }),
  ];
  writeFileSync(
    parentFile,
    [header(PARENT, "2026-03-01T20:00:00.000Z", web.cwd), ...parentEntries].map(line).join(""),
  );
  // A fork copies the parent's first two entries, ids included, then adds one of its own.
  writeFileSync(
    join(web.dir, `2026-03-04T08-00-00-000Z_${FORK}.jsonl`),
    [
      header(FORK, "2026-03-04T08:00:00.000Z", web.cwd, { parentSession: parentFile }),
      ...parentEntries.slice(0, 2),
      assistant("f1", "a2", "2026-03-04T09:00:00.000Z", SONNET, { input: 400, output: 40, cost: 0.04 }),
    ]
      .map(line)
      .join(""),
  );
  writeFileSync(
    join(other.dir, `2025-01-05T08-00-00-000Z_${OLD}.jsonl`),
    [
      header(OLD, "2025-01-05T08:00:00.000Z", other.cwd),
      assistant("o1", null, "2025-01-05T09:00:00.000Z", GPT, { input: 7000, output: 700, cost: 1.23456789 }),
    ]
      .map(line)
      .join(""),
  );
});

afterAll(() => home?.cleanup());

async function json(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<any> {
  const r = await home.runInProcess([...args, "--json"], opts);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

const keys = (data: any) => data.rows.map((r: any) => r.key);
const sum = (rows: any[], field: string) => rows.reduce((n: number, r: any) => n + r[field], 0);

describe("stats by period", () => {
  it("groups weeks by their Monday in the time zone asked, split by model", async () => {
    const utc = await json(["stats", "--all", "--by", "week", "--breakdown", "--timezone", "UTC"]);
    expect(utc.timeZone).toBe("UTC");
    expect(utc.breakdown).toBe(true);
    expect(keys(utc)).toEqual(["2024-12-30", "2026-02-23", "2026-03-02", "2026-03-09", "2026-03-30"]);
    for (const row of utc.rows) {
      expect(sum(row.models, "totalTokens")).toBe(row.totalTokens);
      expect(sum(row.models, "records")).toBe(row.records);
    }
    const march2 = utc.rows.find((r: any) => r.key === "2026-03-02");
    expect(march2.models.map((m: any) => m.key)).toEqual([GPT, SONNET]);
    // In Tokyo the Sunday-night record falls on Monday 2026-03-02.
    const tokyo = await json(["stats", "--all", "--by", "week", "--timezone", "Asia/Tokyo"]);
    expect(keys(tokyo)).toEqual(["2024-12-30", "2026-03-02", "2026-03-09", "2026-03-30"]);
    // Without --timezone: the local zone (TZ).
    const local = await json(["stats", "--all", "--by", "week"], { env: { TZ: "Asia/Tokyo" } });
    expect(local.timeZone).toBe("Asia/Tokyo");
    expect(keys(local)).toEqual(keys(tokyo));
    for (const data of [utc, tokyo, local]) {
      for (const field of ["input", "output", "totalTokens", "records"])
        expect(sum(data.rows, field)).toBe(data.totals[field]);
    }
  });

  it("groups by day and month, oldest first", async () => {
    const days = await json(["stats", "--all", "--by", "day", "--timezone", "UTC"]);
    expect(keys(days)).toEqual([
      "2025-01-05",
      "2026-03-01",
      "2026-03-03",
      "2026-03-04",
      "2026-03-10",
      "2026-04-02",
    ]);
    const months = await json(["stats", "--all", "--by", "month", "--breakdown", "--timezone", "UTC"]);
    expect(keys(months)).toEqual(["2025-01", "2026-03", "2026-04"]);
    expect(months.rows[1].models).toHaveLength(2);
  });

  it("counts the fork's copies once, credited to the parent", async () => {
    const data = await json(["stats", "--all", "--by", "session"]);
    expect(data.duplicatesSkipped).toBe(2);
    const parent = data.rows.find((r: any) => r.key === PARENT);
    const fork = data.rows.find((r: any) => r.key === FORK);
    expect(parent.records).toBe(4);
    expect(fork.records).toBe(1);
    expect(data.totals.records).toBe(6);
  });
});

describe("stats ranges and footers", () => {
  it("--since and --until take whole days in the zone; the footer counts only the sessions covered", async () => {
    const march = await json([
      "stats",
      "--all",
      "--by",
      "session",
      "--since",
      "2026-03-01",
      "--until",
      "2026-03-31",
    ]);
    expect(march.since).toBe("2026-03-01T00:00:00.000Z");
    expect(march.until).toBe("2026-04-01T00:00:00.000Z");
    expect(march.sessions).toBe(2);
    expect(march.sessionsRead).toBe(3);
    expect(march.outsideRange).toBe(2);
    expect(march.totals.records).toBe(4);
    // --until 2026-03-03 keeps all of the 3rd.
    const toThird = await json(["stats", "--all", "--since", "2026-03-01", "--until", "2026-03-03"]);
    expect(toThird.totals.records).toBe(2);
    // The same dates in Tokyo start 9 hours earlier.
    const tokyo = await json(["stats", "--all", "--since", "2026-03-02", "--timezone", "Asia/Tokyo"]);
    expect(tokyo.since).toBe("2026-03-01T15:00:00.000Z");
    const text = await home.runInProcess([
      "stats",
      "--all",
      "--since",
      "2026-03-01",
      "--until",
      "2026-03-31",
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "2 sessions; 1 more without usage in range; 2026-03-01 to 2026-03-10 (UTC)",
    );
    expect(text.stdout).toContain("2 usage records outside the range left out");
  });

  it("describes session rows by name, project and last use", async () => {
    const data = await json(["stats", "--all", "--by", "session"]);
    const parent = data.rows.find((r: any) => r.key === PARENT);
    expect(parent.session).toEqual({
      id: PARENT,
      path: parentFile,
      name: "upload limits",
      project: web.cwd,
      created: "2026-03-01T20:00:00.000Z",
      firstUsage: "2026-03-01T23:30:00.000Z",
      lastUsage: "2026-04-02T10:00:00.000Z",
      parent: null,
    });
    // Its fork is under it: the parent's row has its cost with the fork's, the fork's row says whose.
    const fork = data.rows.find((r: any) => r.key === FORK);
    expect(fork.session.parent).toEqual({ path: parentFile, kind: "fork" });
    expect(parent.costWithChildren).toBeCloseTo(parent.cost + fork.cost, 6);
    const text = (await home.runInProcess(["stats", "--all", "--by", "session"])).stdout;
    const row = text.split("\n").find((l) => l.startsWith("upload limits"));
    // The project under HOME is shown as ~, the id beside the name.
    expect(row).toContain(`~${web.cwd.slice(home.home.length)}`);
    expect(row).toContain("2026-04-02");
    expect(text).toContain(FORK.slice(0, 8));
  });

  it("answers for the current project without --all, and for one session", async () => {
    const project = await json(["stats", "--by", "project"], { cwd: web.cwd });
    expect(keys(project)).toEqual([web.cwd]);
    expect(project.sessions).toBe(2);
    const one = await json(["stats", parentFile, "--by", "session"]);
    expect(one.rows[0].session.name).toBe("upload limits");
    expect(one.totals.records).toBe(4);
  });
});

describe("stats costs", () => {
  it("rounds costs to 1e-6 in JSON and to the cent in text", async () => {
    const r = await home.runInProcess(["stats", "--all", "--by", "model", "--json"]);
    expect(r.stdout).not.toMatch(/\d\.\d{7,}/);
    const data = JSON.parse(r.stdout);
    expect(data.totals.cost).toBe(1.874568);
    expect(data.rows.find((x: any) => x.key === SONNET).cost).toBe(0.44);
    const text = (await home.runInProcess(["stats", "--all", "--by", "model"])).stdout;
    expect(text).toMatch(/openai\/gpt-5 .* \$1\.43\b/);
    expect(text).toMatch(/^total .* \$1\.87\*/m);
  });

  it("does not trust a cost of 0 next to tokens: marked, its tokens counted apart", async () => {
    const data = await json(["stats", "--all", "--by", "model"]);
    expect(data.totals.zeroCostWithTokens).toBe(1);
    expect(data.totals.unpricedTokens).toBe(5500);
    const llama = data.rows.find((x: any) => x.key === "local/llama");
    expect(llama).toMatchObject({ cost: 0, zeroCostWithTokens: 1, unpricedTokens: 5500 });
    const text = (await home.runInProcess(["stats", "--all", "--by", "model"])).stdout;
    expect(text).toMatch(/^local\/llama .* \?\s+1$/m);
    expect(text).toContain("* 1 usage record (5,500 tokens) has a cost of 0 with tokens:");
    expect(text).toContain("(? : nothing in the row has a price)");
  });
});

describe("stats usage errors", () => {
  it.each([
    [["--by", "hour"], "--by must be one of day, week, month, session, project, model"],
    [["--timezone", "Mars/Olympus"], "not a time zone"],
    [["--breakdown"], "--breakdown splits"],
    [["--by", "model", "--breakdown"], "--breakdown splits"],
    [["--since", "2026-13-45"], "--since `2026-13-45`"],
    [["--since", "2026-03-10", "--until", "2026-03-01"], "is not after --since"],
  ])("stats --all %j exits 2", async (args, message) => {
    const r = await home.runInProcess(["stats", "--all", ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(message);
  });
});

describe("stats on a terminal", () => {
  it("fits the table to the width: figures give way at 60 columns, all are shown at 100 and on a pipe", {
    tags: ["processes"],
  }, () => {
    const args = ["stats", "--all", "--by", "week", "--breakdown", "--timezone", "UTC"];
    const narrow = home.runTty(args, { cols: 60 });
    expect(narrow.code).toBe(0);
    const narrowLines = plain(narrow.out).trimEnd().split("\n");
    for (const l of narrowLines) expect([...l].length, l).toBeLessThanOrEqual(60);
    const head = narrowLines[0] as string;
    expect(head).toMatch(/^week of .*tokens +cost$/);
    expect(head).not.toContain("cache write");
    expect(narrowLines.some((l) => l.includes("anthropic/claude-sonnet-4-5"))).toBe(true);
    const wide = home.runTty(args, { cols: 100 });
    const wideLines = plain(wide.out).trimEnd().split("\n");
    for (const l of wideLines) expect([...l].length, l).toBeLessThanOrEqual(100);
    expect(wideLines[0]).toContain("cache write");
    const piped = home.run(args, { env: { COLUMNS: "40" } });
    expect(piped.stdout.split("\n")[0]).toContain("records");
  });

  it("cuts session names and keeps the end of project paths at 60 columns", { tags: ["processes"] }, () => {
    const r = home.runTty(["stats", "--all", "--by", "session"], { cols: 60 });
    const lines = plain(r.out).trimEnd().split("\n");
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(60);
    expect(lines.some((l) => l.startsWith("upload limits"))).toBe(true);
    expect(lines[0]).toMatch(/tokens +cost$/);
  });
});
