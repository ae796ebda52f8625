/**
 * Operands that look like options, in-process through `runCli`: the project folders pi names
 * `--<cwd>--` (and the files in them) work as arguments as they are; after `--` every argument
 * is an operand; options are still options, and an unknown one is still refused. `ls <project>`
 * lists a project by its folder in the store, by its cwd, or a copy of a folder elsewhere.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chat, CliHome, dirFor } from "../test/harness.js";
import { hideOperands } from "./program.js";

describe("hideOperands", () => {
  it("hides what follows `--` and the `--` tokens that cannot be options, and drops the first `--`", () => {
    const { argv } = hideOperands(["ls", "--home-u-p--", "--all", "--limit=3", "--", "--json", "x", "--"]);
    expect(argv[0]).toBe("ls");
    expect(argv[1]).toMatch(/^\u0000\d+\u0000$/);
    expect(argv.slice(2, 4)).toEqual(["--all", "--limit=3"]);
    expect(argv.slice(4)).toEqual([expect.stringMatching(/^\u0000/), "x", expect.stringMatching(/^\u0000/)]);
    const { operands } = hideOperands(["show", "--a--/b.jsonl"]);
    expect(operands.shown("no session `\u00000\u0000`")).toBe("no session `--a--/b.jsonl`");
  });

  it("leaves options, values and single dashes alone", () => {
    for (const argv of [
      ["ls", "--all", "--no-cache"],
      ["stats", "--by=session", "-v"],
      ["show", "x", "--last", "-3"],
    ])
      expect(hideOperands(argv).argv).toEqual(argv);
  });
});

describe("paths that start with --, and ls <project>", () => {
  let cli: CliHome;
  /** In-process, colours off (a `columns` wide stdout is a terminal). */
  const run = (args: string[], opts: { cwd?: string; env?: Record<string, string>; columns?: number } = {}) =>
    cli.runInProcess(args, { ...opts, env: { NO_COLOR: "1", ...opts.env } });
  let proj: string;
  let other: string;
  let folder: string;
  let file: string;
  const A = "aa11aa11-0000-4000-8000-000000000001";
  const B = "bb22bb22-0000-4000-8000-000000000002";
  const C = "cc33cc33-0000-4000-8000-000000000003";

  beforeAll(() => {
    cli = new CliHome();
    proj = cli.dir("proj");
    other = cli.dir("other");
    file = cli.write({
      id: A,
      cwd: proj,
      created: "2026-03-01T10:00:00.000Z",
      entries: chat("a", "2026-03-01T10:00:00.000Z", 1, () => "alpha words"),
    });
    cli.write({
      id: B,
      cwd: proj,
      created: "2026-03-02T10:00:00.000Z",
      entries: chat("b", "2026-03-02T10:00:00.000Z", 1, () => "beta words"),
    });
    cli.write({
      id: C,
      cwd: other,
      created: "2026-03-03T10:00:00.000Z",
      entries: chat("c", "2026-03-03T10:00:00.000Z", 1, () => "gamma words"),
    });
    folder = join(cli.sessions, dirFor(proj));
  });
  afterAll(() => cli.cleanup());

  const ids = (out: string) => [...out.matchAll(/"id": "([^"]+)"/g)].map((m) => m[1]);

  it("ls <project folder> lists the sessions of that folder, from anywhere", async () => {
    const r = await run(["ls", `${folder}/`, "--json"], { cwd: other });
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual([B, A]);
  });

  it("ls <relative folder that starts with -->, as typed in the store, with or without `--`", async () => {
    for (const argv of [
      ["ls", dirFor(proj)],
      ["ls", "--", dirFor(proj)],
      ["ls", `${dirFor(proj)}/`],
    ]) {
      const r = await run(["--json", ...argv], { cwd: cli.sessions });
      expect(r.code, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
      expect(ids(r.stdout)).toEqual([B, A]);
    }
  });

  it("ls <cwd> lists that project, ~ included; a table names it with ~", async () => {
    const r = await run(["ls", proj, "--json"], { cwd: other });
    expect(ids(r.stdout)).toEqual([B, A]);
    const tilde = await run(["ls", "~/other", "--json"], { cwd: proj });
    expect(ids(tilde.stdout)).toEqual([C]);
    const table = await run(["ls", proj], { cwd: other });
    expect(table.stdout).toMatch(/^project ~\/proj$/m);
  });

  it("ls <a copy of a project folder elsewhere> lists its files", async () => {
    const copy = join(cli.dir("backup"), dirFor(proj));
    cpSync(folder, copy, { recursive: true });
    const r = await run(["ls", copy, "--json"], { cwd: other });
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual([B, A]);
    expect(r.stdout).toContain(join("backup", dirFor(proj)));
  });

  it("ls refuses what is not a directory, and a project with --all or --cwd", async () => {
    expect((await run(["ls", "nowhere"])).code).toBe(2);
    expect((await run(["ls", file])).stderr).toContain("not a directory");
    expect((await run(["ls", proj, "--all"])).code).toBe(2);
    expect((await run(["ls", proj, "--cwd", other])).code).toBe(2);
  });

  it("a session file under a --folder-- given by a relative path is read, for show, validate and stats", async () => {
    const relative = join(dirFor(proj), file.slice(folder.length + 1));
    for (const argv of [
      ["show", relative],
      ["stats", relative, "--json"],
      ["show", "--", relative],
    ]) {
      const r = await run(argv, { cwd: cli.sessions });
      expect(r.code, `${argv.join(" ")}: ${r.stdout} ${r.stderr}`).toBe(0);
    }
    // The hand-written assistant messages lack pi's usage: findings (1), not a usage error (2).
    const checked = await run(["validate", relative], { cwd: cli.sessions });
    expect(checked.stdout).toContain("1 session checked");
    const shown = await run(["show", relative], { cwd: cli.sessions });
    expect(shown.stdout).toContain("alpha words");
  });

  it("after `--`, an argument that looks like an option is an operand; options before it still count", async () => {
    const r = await run(["show", "--json", "--", "--json"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("--json");
    expect(r.stderr).not.toContain("\\x00");
  });

  it("an unknown option is still refused", async () => {
    const r = await run(["ls", "--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option `--bogus`");
  });
});
