/**
 * End-to-end: dates and limits on the command line (`--since`, `--until`, `--limit`), read by
 * the one strict parser, on pipes; the hints when a filter emptied the list.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, chat } from "./harness.js";

let cli: CliHome;
let project: string;

beforeAll(async () => {
  cli = new CliHome();
  project = cli.dir("work", "app");
  cli.write({
    id: "aaaa0000-0000-4000-8000-000000000001",
    cwd: project,
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("a", "2026-03-01T10:00:00.000Z", 2),
  });
  cli.write({
    id: "bbbb0000-0000-4000-8000-000000000002",
    cwd: project,
    created: "2026-03-10T10:00:00.000Z",
    entries: chat("b", "2026-03-10T10:00:00.000Z", 2),
  });
});

afterAll(() => cli.cleanup());

const ids = async (args: string[]) => {
  const r = await cli.runInProcess(["ls", ...args, "--json"], { cwd: project });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).map((s: any) => s.id.slice(0, 4));
};

describe("--since and --until", () => {
  it("a day counts whole: --until 2026-03-10 includes that day, --since the day itself", async () => {
    expect(await ids([])).toEqual(["bbbb", "aaaa"]);
    expect(await ids(["--since", "2026-03-10"])).toEqual(["bbbb"]);
    expect(await ids(["--until", "2026-03-09"])).toEqual(["aaaa"]);
    expect(await ids(["--until", "2026-03-10"])).toEqual(["bbbb", "aaaa"]);
    expect(await ids(["--since", "2026-03-01", "--until", "2026-03-01"])).toEqual(["aaaa"]);
    expect(await ids(["--since", "2026-03-10T10:02Z"])).toEqual(["bbbb"]);
    expect(await ids(["--since", "2026-03-10T10:05Z"])).toEqual([]);
  });

  it("spans back from now and words: 1w, 3mo, today, yesterday", async () => {
    // The sessions are in 2026-03; "now" is the real clock, so only check they parse.
    for (const value of ["1w", "12h", "7d", "3mo", "1y", "today", "yesterday"])
      expect((await cli.runInProcess(["ls", "--since", value, "--json"], { cwd: project })).code, value).toBe(
        0,
      );
  });

  it("refuses dates that do not exist and what is not a date: exit 2, the reason, the forms", async () => {
    const r = await cli.runInProcess(["ls", "--since", "2026-13-45"], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("--since `2026-13-45`: no such date: there is no month 13");
    expect(r.stderr).toContain("YYYY-MM-DD");
    expect((await cli.runInProcess(["ls", "--until", "2026-02-30"])).stderr).toContain(
      "February 2026 has 28 days",
    );
    expect((await cli.runInProcess(["ls", "--since", "3m"])).stderr).toContain("write `mo` for months");
    for (const args of [
      ["ls", "--since", "last week"],
      ["search", "x", "--until", "someday"],
      ["stats", "--since", "2026-02-29"],
      ["ls", "--since", "2026-03-10", "--until", "2026-03-01"],
    ]) {
      const bad = await cli.runInProcess(args, { cwd: project });
      expect(bad.code, args.join(" ")).toBe(2);
      expect(bad.stderr, args.join(" ")).toMatch(/^error: /);
    }
  });

  it("when --since emptied the list, the hint names it, not --all", async () => {
    const r = await cli.runInProcess(["ls", "--since", "2099-01-01"], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("2 sessions outside it (widen or drop --since)");
    expect(r.stderr).not.toContain("--all");
    const both = await cli.runInProcess(["ls", "--since", "2099-01-01", "--until", "2099-02-01"], {
      cwd: project,
    });
    expect(both.stderr).toContain("--since / --until");
    // No sessions at all for the directory: then --all is the hint.
    expect((await cli.runInProcess(["ls"], { cwd: cli.dir("elsewhere") })).stderr).toContain(
      "`--all` lists every project",
    );
  });
});

describe("--limit", () => {
  it("takes a whole number of at least 1; -3, 0 and 2.5 are usage errors that say so", async () => {
    expect(await ids(["--limit", "1"])).toEqual(["bbbb"]);
    const negative = await cli.runInProcess(["ls", "--limit", "-3"], { cwd: project });
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain("--limit needs a number of at least 1, got `-3`");
    expect(negative.stderr).not.toContain("unknown option");
    const zero = await cli.runInProcess(["ls", "--limit", "0"], { cwd: project });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--limit needs a number of at least 1, got `0`");
    expect(zero.stderr).toContain("Leave --limit out for no limit.");
    expect((await cli.runInProcess(["ls", "--limit", "2.5"])).stderr).toContain(
      "--limit needs a whole number, got `2.5`",
    );
    expect((await cli.runInProcess(["search", "x", "--limit=-1"])).code).toBe(2);
  });
});
