/**
 * Human output that reads better (issue 39 item 10), in-process through `runCli`: `--since "2w
 * ago"` and its spelt-out forms wherever a date is taken; paths under the home directory as `~`
 * in human output, full in `--json`; `ls --all` at 70 columns keeps its project column, cut
 * from the start; `stats --by session` tells sessions that share a name apart by their ids;
 * `show`'s header has the models, tokens, cost (an unpriced model said so) and duration.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, message } from "../test/harness.js";

let cli: CliHome;
/** In-process, colours off (a `columns` wide stdout is a terminal). */
const run = (args: string[], opts: { cwd?: string; env?: Record<string, string>; columns?: number } = {}) =>
  cli.runInProcess(args, { ...opts, env: { NO_COLOR: "1", ...opts.env } });
let proj: string;
const DAY = 86_400_000;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const ids = [
  "a0a0a0a0-0000-4000-8000-000000000001",
  "b1b1b1b1-0000-4000-8000-000000000002",
  "c2c2c2c2-0000-4000-8000-000000000003",
];

function assistant(id: string, parent: string, ms: number, model: string, cost: number) {
  return message(id, parent, iso(ms), {
    role: "assistant",
    provider: "anthropic",
    model,
    content: [{ type: "text", text: `answer ${id}` }],
    usage: {
      input: 1000,
      output: 200,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1200,
      cost: { total: cost },
    },
    stopReason: "stop",
  });
}

beforeAll(() => {
  cli = new CliHome();
  proj = cli.dir("code", "a-project-with-a-long-name", "service");
  // Two sessions of a month ago sharing a name, one from yesterday: priced, and one unpriced model.
  const starts = [NOW - 30 * DAY, NOW - 29 * DAY, NOW - DAY];
  starts.forEach((start, i) => {
    const id = ids[i] as string;
    cli.write({
      id,
      cwd: proj,
      created: iso(start),
      entries: [
        message(`u${i}`, null, iso(start + 60_000), { role: "user", content: `question ${i}` }),
        assistant(`a${i}`, `u${i}`, start + 120_000, "claude-sonnet", 0.5),
        assistant(
          `b${i}`,
          `a${i}`,
          start + 65 * 60_000,
          i === 2 ? "local-model" : "claude-sonnet",
          i === 2 ? 0 : 0.25,
        ),
        ...(i < 2
          ? [
              {
                type: "session_info",
                id: `n${i}`,
                parentId: `b${i}`,
                timestamp: iso(start + 66 * 60_000),
                name: "same name",
              },
            ]
          : []),
      ],
    });
  });
});
afterAll(() => cli.cleanup());

describe("--since 2w ago", () => {
  it("is taken by ls, show, search and stats", async () => {
    const listed = await run(["ls", "--all", "--since", "2w ago", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    for (const since of ["2 weeks ago", "14 days ago", "2w"]) {
      const r = await run(["ls", "--all", "--since", since, "--json"]);
      expect(JSON.parse(r.stdout), since).toHaveLength(1);
    }
    const shown = await run(["show", ids[0] as string, "--since", "3 months ago"]);
    expect(shown.code, shown.stderr).toBe(0);
    const stats = await run(["stats", "--all", "--since", "2w ago", "--json"]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout).sessions).toBe(1);
    const search = await run(["search", "answer", "--since", "2w ago", "--json", "--no-index"]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain(ids[2]);
    expect(search.stdout).not.toContain(ids[0]);
  });
});

describe("home as ~", () => {
  it("ls, stats, search and show print ~/..., --json the full path", async () => {
    const ls = await run(["ls", "--all"], { columns: 200 });
    expect(ls.stdout).toContain("~/code/a-project-with-a-long-name/service");
    expect(ls.stdout).not.toContain(cli.home);
    const json = await run(["ls", "--all", "--json"]);
    expect(json.stdout).toContain(`"cwd": "${proj}"`);
    const byProject = await run(["stats", "--all", "--by", "project"], { columns: 200 });
    expect(byProject.stdout).toContain("~/code/a-project-with-a-long-name/service");
    const search = await run(["search", "answer", "--no-index"], { columns: 200 });
    expect(search.stdout).toContain("~/code/a-project");
    const show = await run(["show", ids[2] as string], { columns: 300 });
    expect(show.stdout).toContain("~/.pi/agent/sessions/");
    expect(show.stdout).not.toContain(cli.home);
  });
});

describe("narrow tables", () => {
  it("ls --all at 70 columns keeps the project column, cut from its start", async () => {
    const r = await run(["ls", "--all"], { columns: 70 });
    const [head, ...rows] = r.stdout.trimEnd().split("\n");
    expect(head).toMatch(/modified .*id .*project .*session/);
    for (const row of rows) expect(row).toMatch(/…|~\/code/);
    for (const line of r.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(70);
  });

  it("stats --by session tells two sessions of one name apart by their ids", async () => {
    const r = await run(["stats", "--all", "--by", "session"], { columns: 120 });
    const named = r.stdout.split("\n").filter((l) => l.startsWith("same name"));
    expect(named).toHaveLength(2);
    expect(named[0]).toContain("a0a0a0a0");
    expect(named[1]).toContain("b1b1b1b1");
    expect(r.stdout).toMatch(/^\(no name\)\s+c2c2c2c2/m);
  });
});

describe("show's header", () => {
  it("has the models, tokens, cost and duration", async () => {
    const r = await run(["show", ids[0] as string]);
    const lines = r.stdout.split("\n");
    expect(lines[2]).toBe("anthropic/claude-sonnet · 2,400 tokens · $0.75 · 1h 06m");
  });

  it("says when part of the cost is unknown, never $0.00 for an unpriced model", async () => {
    const r = await run(["show", ids[2] as string]);
    expect(r.stdout.split("\n")[2]).toBe(
      "anthropic/claude-sonnet, anthropic/local-model · 2,400 tokens · $0.50+ (1,200 tokens unpriced) · 1h 05m",
    );
  });
});
