/**
 * End-to-end: reading at a terminal. `ls` fitted to 60 and 100 columns under `script` (columns
 * dropped in order, cells cut with `…`, the project named once without `--all`), whole on a
 * pipe; `ls` and `latest` from a project's subdirectory; `show --last`, `--since`, `--until`;
 * "did you mean" for a mistyped command or option.
 */
import { textWidth } from "@pi-session/render";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, chat, plain } from "./harness.js";

let cli: CliHome;
let project: string;
let other: string;
const NAMED = "a1a1a1a1-0000-4000-8000-000000000001";
const CHAT = "b2b2b2b2-0000-4000-8000-000000000002";
const ELSEWHERE = "c3c3c3c3-0000-4000-8000-000000000003";
const FIRST =
  "Please look at the upload endpoint and explain why the rate limiter lets bursts of requests through";

beforeAll(() => {
  cli = new CliHome("pi-session-reading-");
  project = cli.dir("work", "projects", "a-web-application-with-a-long-name");
  other = cli.dir("work", "projects", "another-project-whose-directory-name-is-long-too");
  cli.write({
    id: NAMED,
    cwd: project,
    created: "2026-03-01T10:00:00.000Z",
    entries: [
      ...chat("n", "2026-03-01T10:00:00.000Z", 2),
      {
        type: "session_info",
        id: "n0000099",
        parentId: "n0000004",
        timestamp: "2026-03-01T10:30:00.000Z",
        name: "rate limiting",
      },
    ],
  });
  // Ten turns, a minute apart from 2026-03-02 10:01 to 10:20.
  cli.write({
    id: CHAT,
    cwd: project,
    created: "2026-03-02T10:00:00.000Z",
    entries: chat("c", "2026-03-02T10:00:00.000Z", 10, (i) => (i === 0 ? FIRST : `turn ${i}`)),
  });
  cli.write({
    id: ELSEWHERE,
    cwd: other,
    created: "2026-03-03T10:00:00.000Z",
    entries: chat("e", "2026-03-03T10:00:00.000Z", 1, () => FIRST),
  });
});

afterAll(() => cli.cleanup());

const lines = (out: string) => plain(out).trimEnd().split("\n");
const widest = (out: string) => Math.max(...lines(out).map(textWidth));
const headerOf = (out: string) => lines(out).find((l) => l.startsWith("modified")) ?? "";

describe("ls fitted to the terminal", () => {
  it("at 100 columns, --all keeps every column and cuts the long cells with …", {
    tags: ["processes"],
  }, () => {
    const r = cli.runTty(["ls", "--all"], { cols: 100 });
    expect(r.code, r.out).toBe(0);
    expect(widest(r.out), r.out).toBeLessThanOrEqual(100);
    expect(headerOf(r.out).split(/\s+/)).toEqual(["modified", "msgs", "id", "project", "session"]);
    expect(plain(r.out)).toContain("…");
    expect(plain(r.out)).toContain("rate limiting");
  });

  it("at 60 columns, --all drops the message count first and keeps the project, cut", {
    tags: ["processes"],
  }, () => {
    const r = cli.runTty(["ls", "--all"], { cols: 60 });
    expect(r.code, r.out).toBe(0);
    expect(widest(r.out), r.out).toBeLessThanOrEqual(60);
    expect(headerOf(r.out).split(/\s+/)).toEqual(["modified", "id", "project", "session"]);
    expect(plain(r.out)).toMatch(/a1a1a1a1 +…long-name +rate limiting/);
    expect(plain(r.out)).toMatch(/b2b2b2b2 +…long-name +Please look at the …/);
  });

  it("narrower, the project goes next, then the time", { tags: ["processes"] }, () => {
    expect(headerOf(cli.runTty(["ls", "--all"], { cols: 55 }).out).split(/\s+/)).toEqual([
      "modified",
      "id",
      "session",
    ]);
    const narrow = cli.runTty(["ls", "--all"], { cols: 30 });
    expect(headerOf(narrow.out)).toBe("");
    expect(lines(narrow.out)[0]?.split(/\s+/)).toEqual(["id", "session"]);
    expect(widest(narrow.out), narrow.out).toBeLessThanOrEqual(30);
  });

  it("without --all the project is named once, above the table", { tags: ["processes"] }, () => {
    const r = cli.runTty(["ls"], { cols: 100, cwd: project });
    expect(r.code, r.out).toBe(0);
    const shown = lines(r.out);
    // Under the home directory: shown as ~.
    const tilde = `~${project.slice(cli.home.length)}`;
    expect(shown[0]).toBe(`project ${tilde}`);
    expect(headerOf(r.out).split(/\s+/)).toEqual(["modified", "msgs", "id", "session"]);
    expect(plain(r.out).split(tilde)).toHaveLength(2);
  });

  it("on a pipe every line is whole (previews are cut at 60 characters, as always)", async () => {
    const r = await cli.runInProcess(["ls", "--all"], { env: { COLUMNS: "40" } });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]?.split(/\s+/)).toEqual(["modified", "msgs", "id", "project", "session"]);
    expect(r.stdout).toContain(`~${other.slice(cli.home.length)}  ${FIRST.slice(0, 59)}…`);
  });

  it("COLUMNS sets the width on a terminal", { tags: ["processes"] }, () => {
    const r = cli.runTty(["ls", "--all"], { cols: 120, env: { COLUMNS: "60" } });
    expect(widest(r.out), r.out).toBeLessThanOrEqual(60);
  });
});

describe("ls from a subdirectory", () => {
  it("lists the nearest enclosing project with sessions, and says which on stderr", async () => {
    const sub = cli.dir("work", "projects", "a-web-application-with-a-long-name", "src", "deep");
    const r = await cli.runInProcess(["ls"], { cwd: sub });
    expect(r.code, r.stderr).toBe(0);
    const tilde = `~${project.slice(cli.home.length)}`;
    expect(r.stderr).toContain(`sessions of ${tilde} (a parent of the current directory)`);
    expect(r.stdout.split("\n")[0]).toBe(`project ${tilde}`);
    expect(r.stdout).toContain("a1a1a1a1");
    expect(r.stdout).toContain("b2b2b2b2");
    expect(r.stdout).not.toContain("c3c3c3c3");
    // `latest` is still the top row of `ls`.
    const latest = await cli.runInProcess(["show", "latest", "--json"], { cwd: sub });
    expect(latest.code, latest.stderr).toBe(0);
    expect(JSON.parse(latest.stdout).id).toBe(CHAT);
  });

  it("a directory with sessions of its own lists only those; --cwd is taken as it is", async () => {
    const r = await cli.runInProcess(["ls", "--json"], { cwd: project });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    const exact = await cli.runInProcess(["ls", "--cwd", `${project}/src`]);
    expect(exact.code).toBe(0);
    expect(exact.stdout).toBe("");
    expect(exact.stderr).toContain("no sessions for");
  });

  it("a directory with no enclosing project still says so", async () => {
    const lonely = cli.dir("elsewhere", "nothing");
    const r = await cli.runInProcess(["ls"], { cwd: lonely });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("--all");
  });
});

describe("show --last, --since, --until", () => {
  const turns = (out: string) => [...out.matchAll(/^ {2}turn (\d+)$/gm)].map((m) => Number(m[1]));

  it("--last N shows the last N entries of the branch and says how many were left out", async () => {
    const r = await cli.runInProcess(["show", CHAT, "--last", "3"]);
    expect(r.code, r.stderr).toBe(0);
    expect(turns(r.stdout)).toEqual([17, 18, 19]);
    expect(r.stdout).toContain("… 17 of 20 entries left out (--last 3)");
    expect(r.stdout).not.toContain(FIRST);
    const json = JSON.parse((await cli.runInProcess(["show", CHAT, "--last", "3", "--json"])).stdout);
    expect(json.entries.map((e: { id: string }) => e.id)).toEqual(["c0000018", "c0000019", "c0000020"]);
    // More than there are: everything, and no note.
    const all = await cli.runInProcess(["show", CHAT, "--last", "500"]);
    expect(all.stdout).toContain(FIRST);
    expect(all.stdout).not.toContain("left out");
  });

  it("--since and --until keep the entries of that time; --last counts within them", async () => {
    const r = await cli.runInProcess([
      "show",
      CHAT,
      "--since",
      "2026-03-02T10:05Z",
      "--until",
      "2026-03-02T10:08Z",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(turns(r.stdout)).toEqual([4, 5, 6, 7]);
    expect(r.stdout).toContain("… 16 of 20 entries left out (--since, --until)");
    const both = await cli.runInProcess(["show", CHAT, "--since", "2026-03-02T10:05Z", "--last", "2"]);
    expect(turns(both.stdout)).toEqual([18, 19]);
    const json = JSON.parse(
      (await cli.runInProcess(["show", CHAT, "--since", "2026-03-02T10:19Z", "--json"])).stdout,
    );
    expect(json.entries.map((e: { id: string }) => e.id)).toEqual(["c0000019", "c0000020"]);
  });

  it("an empty selection says so; bad values are usage errors", async () => {
    const none = await cli.runInProcess(["show", CHAT, "--since", "2027-01-01"]);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain("no entries in that selection");
    for (const args of [
      ["--last", "0"],
      ["--last", "-2"],
      ["--last", "many"],
      ["--since", "2026-13-45"],
    ]) {
      const r = await cli.runInProcess(["show", CHAT, ...args]);
      expect(r.code, args.join(" ")).toBe(2);
    }
  });
});

describe("did you mean", () => {
  it("a mistyped command gets the closest one, exit 2", async () => {
    const r = await cli.runInProcess(["shwo", "latest"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command `shwo`");
    expect(r.stderr).toContain('did you mean "show"?');
    expect((await cli.runInProcess(["stat"])).stderr).toContain('did you mean "stats"?');
    expect((await cli.runInProcess(["contxet", "x"])).stderr).toContain('did you mean "context"?');
  });

  it("a mistyped long option gets the closest of the command's options", async () => {
    const r = await cli.runInProcess(["show", CHAT, "--al-branches"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option `--al-branches`");
    expect(r.stderr).toContain('did you mean "--all-branches"?');
    expect((await cli.runInProcess(["ls", "--limt", "3"])).stderr).toContain('did you mean "--limit"?');
    expect((await cli.runInProcess(["ls", "--sesion-dir", "x"])).stderr).toContain(
      'did you mean "--session-dir"?',
    );
  });

  it("nothing close: the usual hint, no guess", async () => {
    const r = await cli.runInProcess(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("did you mean");
    expect(r.stderr).toContain("pi-session --help");
    const opt = await cli.runInProcess(["ls", "--zzzzzz"]);
    expect(opt.code).toBe(2);
    expect(opt.stderr).not.toContain("did you mean");
  });
});
