/**
 * End-to-end: `pi-session pick` under tmux (a private server socket per test, see the harness),
 * driven by keys as a person would: typing filters, arrows move, Enter prints the chosen path
 * on stdout and exits 0, Esc exits 130 with nothing printed, a wide terminal previews the
 * session's last messages, and session text cannot reach the terminal raw. On pipes it is
 * refused (exit 2); `--resume` (or `--exec`) resumes the choice in pi in its own directory;
 * `--fzf` and `--resume` say clearly what they need when it is missing.
 * @module-tag processes
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliHome, Tmux, chat } from "./harness.js";

// fzf is the user's own tool: the test of --fzf runs where it is installed.
const hasFzf = spawnSync("fzf", ["--version"], { encoding: "utf8" }).status === 0;

let cli: CliHome;
let tmux: Tmux | undefined;
const paths: Record<string, string> = {};

beforeEach(() => {
  cli = new CliHome("pi-session-pick-");
  paths.parser = cli.write({
    id: "aaaa0000-0000-4000-8000-000000000001",
    cwd: "/work/parser",
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("a", "2026-03-01T10:00:00.000Z", 2, (i) =>
      i === 0 ? "fix the parser timeout" : `parser reply ${i}`,
    ),
  });
  paths.upload = cli.write({
    id: "bbbb0000-0000-4000-8000-000000000002",
    cwd: "/work/upload",
    created: "2026-03-02T10:00:00.000Z",
    entries: chat("b", "2026-03-02T10:00:00.000Z", 2, (i) =>
      i === 0 ? "rate limit the uploads" : `the last upload words ${i}`,
    ),
  });
  paths.hostile = cli.write({
    id: "cccc0000-0000-4000-8000-000000000003",
    cwd: "/work/hostile",
    created: "2026-03-03T10:00:00.000Z",
    entries: chat("c", "2026-03-03T10:00:00.000Z", 1, (i) =>
      i === 0 ? "evil \x1b]0;pwned\x07\x1b[2J title" : "ok",
    ),
  });
});

afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  cli.cleanup();
});

/** `pick <query>` lists the parser session alone, and Enter prints its path (exit 0). */
async function picksTheParserSession(query: string): Promise<void> {
  tmux = new Tmux(cli, 80, 24);
  tmux.start(["pick", query]);
  await tmux.waitFor((s) => s.includes("1/1") && s.includes("fix the parser timeout"));
  tmux.keys("Enter");
  expect(await tmux.exitCode()).toBe(0);
  // A path wider than the pane wraps: read the pane's lines joined.
  await tmux.waitFor((s) => s.replace(/\n/g, "").includes(paths.parser as string));
}

describe("pi-session pick", () => {
  it("lists newest first, filters as you type, moves with the arrows, and Enter prints the path", async () => {
    tmux = new Tmux(cli, 80, 24);
    tmux.start(["pick"]);
    let screen = await tmux.waitFor((s) => s.includes("fix the parser timeout"));
    // Newest first: the hostile session (3 March) above upload (2 March) above parser.
    expect(screen.indexOf("evil")).toBeLessThan(screen.indexOf("rate limit the uploads"));
    expect(screen.indexOf("rate limit the uploads")).toBeLessThan(screen.indexOf("fix the parser timeout"));
    tmux.keys("-l", "work");
    await tmux.waitFor((s) => s.startsWith("> work"));
    tmux.keys("Down", "Down");
    screen = await tmux.waitFor((s) => s.includes("3/3"));
    tmux.keys("Up");
    screen = await tmux.waitFor((s) => s.includes("2/3"));
    tmux.keys("Enter");
    expect(await tmux.exitCode()).toBe(0);
    // The pane shows what stdout printed once the picker left the alternate screen.
    // A path wider than the pane wraps: read the pane's lines joined.
    screen = await tmux.waitFor((s) => s.replace(/\n/g, "").includes(paths.upload as string));
    expect(screen).not.toContain("fix the parser timeout");
  });

  it("a query narrows the list to the matching session; Enter picks it", async () => {
    await picksTheParserSession("parser");
  });

  it("filters through the session database's search once its index exists", async () => {
    // "reply" is only in assistant messages: no name, first message or project holds it.
    tmux = new Tmux(cli, 80, 24);
    tmux.start(["pick", "reply"]);
    await tmux.waitFor((s) => s.includes("no sessions match"));
    tmux.keys("Escape");
    expect(await tmux.exitCode()).toBe(130);
    tmux.kill();
    expect(cli.run(["search", "reply", "--files"]).code).toBe(0);
    await picksTheParserSession("reply");
  });

  it("shows the session database's build progress in its footer while a search waits for it", async () => {
    expect(cli.run(["search", "reply", "--files"]).code).toBe(0);
    // Sessions the index has not seen: the pick's sync reads each (seconds, on any machine).
    const words = "wiring flux capacitor mountain road sea river index build page".split(" ");
    for (let n = 0; n < 600; n++)
      cli.write({
        id: `dddd${String(n).padStart(4, "0")}-0000-4000-8000-000000000000`,
        cwd: `/work/many-${n % 5}`,
        created: new Date(Date.UTC(2026, 1, 1) + n * 60_000).toISOString(),
        entries: chat(`d${n}`, new Date(Date.UTC(2026, 1, 1) + n * 60_000).toISOString(), 20, (i) =>
          Array.from({ length: 40 }, (_, k) => words[(n + i + k) % words.length]).join(" "),
        ),
      });
    tmux = new Tmux(cli, 100, 24);
    tmux.start(["pick"]);
    const during = await tmux.waitFor((s) => /indexing \d+\/600 \(\d+%\)/.test(s));
    expect(during.split("\n").at(-1)).toMatch(/^indexing \d+\/600 .*: a search waits for it · ↑\/↓ move/);
    // Once built, the footer is the keys' help alone.
    await tmux.waitFor((s) => (s.split("\n").at(-1) ?? "").startsWith("↑/↓ move"), 120_000);
    tmux.keys("Escape");
    expect(await tmux.exitCode()).toBe(130);
  });

  it("scrolls a list longer than the screen to keep the selection in view", async () => {
    for (let i = 0; i < 30; i++)
      cli.write({
        id: `dddd${String(i).padStart(4, "0")}-0000-4000-8000-000000000000`,
        cwd: "/work/many",
        created: `2026-02-${String((i % 28) + 1).padStart(2, "0")}T10:00:00.000Z`,
        entries: chat(`d${i}`, `2026-02-${String((i % 28) + 1).padStart(2, "0")}T10:00:00.000Z`, 1, (n) =>
          n === 0 ? `many session ${i}` : "ok",
        ),
      });
    tmux = new Tmux(cli, 80, 10);
    tmux.start(["pick", "many"]);
    await tmux.waitFor((s) => s.includes("1/30"));
    for (let i = 0; i < 20; i++) tmux.keys("Down");
    const screen = await tmux.waitFor((s) => s.includes("21/30"));
    // 8 rows fit: the 21st is the last one shown, the first is gone.
    const rows = screen.split("\n").filter((l) => l.includes("many session"));
    expect(rows).toHaveLength(8);
    expect(rows.at(-1)).toMatch(/^> /);
    tmux.keys("Enter");
    expect(await tmux.exitCode()).toBe(0);
  });

  it("Esc exits 130 and prints nothing", async () => {
    tmux = new Tmux(cli, 80, 24);
    tmux.start(["pick"]);
    await tmux.waitFor((s) => s.includes("fix the parser timeout"));
    tmux.keys("Escape");
    expect(await tmux.exitCode()).toBe(130);
    const screen = tmux.screen();
    expect(screen).not.toContain(".jsonl");
  });

  it("previews the selected session's last messages on a wide terminal, content made safe", async () => {
    tmux = new Tmux(cli, 120, 24);
    tmux.start(["pick", "upload"]);
    const screen = await tmux.waitFor((s) => s.includes("the last upload words 3"));
    expect(screen).toContain("│");
    tmux.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
    // The hostile title is shown with its escapes visible, not obeyed (the screen was not cleared
    // by it, and the window title escape is text).
    const all = await tmux.waitFor((s) => s.includes("3/3") || s.includes("1/3"));
    expect(all).toContain("\\x1b");
    tmux.keys("C-c");
    expect(await tmux.exitCode()).toBe(130);
  });

  for (const flag of ["--resume", "--exec"])
    it(`${flag} runs pi --session <path> in the chosen session's directory, with pi's exit code`, async () => {
      const project = cli.dir("work", "upload-project");
      paths.resumable = cli.write({
        id: "dddd0000-0000-4000-8000-000000000004",
        cwd: project,
        created: "2026-03-04T10:00:00.000Z",
        entries: chat("d", "2026-03-04T10:00:00.000Z", 1, (i) =>
          i === 0 ? "resumable zanzibar work" : "ok",
        ),
      });
      const bin = cli.dir("bin");
      const record = join(cli.home, "pi-args.txt");
      writeFileSync(join(bin, "pi"), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > '${record}'\nexit 7\n`);
      chmodSync(join(bin, "pi"), 0o755);
      tmux = new Tmux(cli, 80, 24);
      tmux.start(["pick", "zanzibar", flag], { env: { PATH: `${bin}:${process.env.PATH ?? ""}` } });
      await tmux.waitFor((s) => s.includes("1/1"));
      tmux.keys("Enter");
      expect(await tmux.exitCode()).toBe(7);
      expect(existsSync(record)).toBe(true);
      expect(readFileSync(record, "utf8")).toBe(`${project}\n--session\n${paths.resumable}\n`);
    });

  it.skipIf(!hasFzf)("--fzf hands the list to fzf; Enter prints the chosen path", async () => {
    tmux = new Tmux(cli, 100, 24);
    tmux.start(["pick", "--fzf", "uploads"]);
    await tmux.waitFor((s) => s.includes("rate limit the uploads") && s.includes("1/3"));
    tmux.keys("Enter");
    expect(await tmux.exitCode()).toBe(0);
    await tmux.waitFor((s) => s.replace(/\n/g, "").includes(paths.upload as string));
  });

  it("is refused on a pipe (exit 2), saying it needs a terminal", () => {
    const r = cli.run(["pick"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pick needs a terminal");
    expect(r.stdout).toBe("");
  });

  it("--fzf and --resume say what is missing when fzf or pi is not on PATH", () => {
    const bare = { PATH: join(cli.home, "no-such-bin") };
    const fzf = cli.run(["pick", "--fzf"], { env: bare });
    expect(fzf.code).toBe(1);
    expect(fzf.stderr).toContain("`fzf` not found on PATH");
    const exec = cli.run(["pick", "--resume"], { env: bare });
    expect(exec.code).toBe(1);
    expect(exec.stderr).toContain("`pi` not found on PATH");
  });
});
