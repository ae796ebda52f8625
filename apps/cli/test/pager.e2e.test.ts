/**
 * End-to-end: the pager. Under tmux (a real terminal, keys sent as a person types them): a long
 * `show` opens less (`LESS=FRX` by default), `q` quits it with exit 0 even with output still
 * unread, Ctrl-C once all is written leaves less to the reader; a short `show` just prints; `--no-pager` and
 * `PAGER=cat` print without waiting; a thinking block of several lines stays dimmed on every line
 * in less (which resets the styles at each line). Under `script`, with a pager that copies what it reads to a
 * file: a terminal pages, a pipe and `--json` never do, `PI_SESSION_PAGER` wins over `PAGER`,
 * and a pager command that does not exist means plain output, without an error.
 * @module-tag processes
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, Tmux, chat, message, plain } from "./harness.js";

let cli: CliHome;
let project: string;
const LONG = "10aa10aa-0000-4000-8000-000000000001";
const SHORT = "50bb50bb-0000-4000-8000-000000000002";
const THINKING = "70cc70cc-0000-4000-8000-000000000003";
const tmuxes: Tmux[] = [];

beforeAll(() => {
  cli = new CliHome("pi-session-pager-");
  project = cli.dir("work", "paged");
  // Far more than a screen, and more than a pipe's buffer (so quitting early leaves output unread).
  cli.write({
    id: LONG,
    cwd: project,
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("a", "2026-03-01T10:00:00.000Z", 1500, (i) => `long line ${i}`),
  });
  cli.write({
    id: SHORT,
    cwd: project,
    created: "2026-03-02T10:00:00.000Z",
    entries: chat("b", "2026-03-02T10:00:00.000Z", 1, (i) => `short line ${i}`),
  });
  cli.write({
    id: THINKING,
    cwd: project,
    created: "2026-03-03T10:00:00.000Z",
    entries: [
      message("t1", null, "2026-03-03T10:01:00.000Z", { role: "user", content: "think it over" }),
      message("t2", "t1", "2026-03-03T10:02:00.000Z", {
        role: "assistant",
        provider: "anthropic",
        model: "claude-sonnet",
        content: [
          { type: "thinking", thinking: "first thought\nsecond thought\nthird thought" },
          { type: "text", text: "the answer" },
        ],
      }),
    ],
  });
});

afterAll(() => {
  for (const t of tmuxes) t.kill();
  cli.cleanup();
});

function tmux(): Tmux {
  const t = new Tmux(cli, 80, 24);
  tmuxes.push(t);
  return t;
}

describe("under tmux", () => {
  it("a long show opens less; q quits it with exit 0", async () => {
    const t = tmux();
    t.start(["show", LONG], { cwd: project });
    // less waits at its prompt with the first screen shown.
    const screen = await t.waitFor(
      (s) => s.includes("long line 3") && /^:\s*$/m.test(s.split("\n").at(-1) ?? ""),
    );
    expect(screen).not.toContain("long line 2999");
    expect(t.running()).toBe(true);
    t.keys("q");
    expect(await t.exitCode()).toBe(0);
    t.kill();
  });

  it("Ctrl-C leaves less to the reader; q still ends the command", async () => {
    const t = tmux();
    t.start(["show", LONG], { cwd: project });
    // At the end first: all was written, so the key is the pager's, not a stop of the command.
    await t.waitFor((s) => s.includes("long line 3"));
    t.keys("G");
    await t.waitFor((s) => s.includes("long line 2999"));
    t.keys("C-c");
    // less drops what was typed before it took the interrupt in (a busy machine runs the two
    // keys together), so g is sent again until it is taken: going to the top twice is the same.
    const top = (s: string) => s.includes("long line 3") && !s.includes("long line 2999");
    for (let tries = 1; ; tries++) {
      t.keys("g");
      try {
        await t.waitFor(top, 5_000);
        break;
      } catch (error) {
        if (tries === 12) throw error;
      }
    }
    expect(t.running()).toBe(true);
    t.keys("q");
    expect(await t.exitCode()).toBe(0);
    t.kill();
  });

  it("a short show prints without waiting for a key", async () => {
    const t = tmux();
    t.start(["show", SHORT], { cwd: project });
    expect(await t.exitCode()).toBe(0);
    expect(t.screen()).toContain("short line 1");
    t.kill();
  });

  it("less shows every line of a thinking block dimmed, not only the first", async () => {
    const t = tmux();
    // Without F, less waits at its prompt even for a short text: what is seen is less's screen.
    t.start(["show", THINKING], { cwd: project, env: { LESS: "RX", FORCE_COLOR: "1", NO_COLOR: "" } });
    await t.waitFor((s) => s.includes("the answer") && (s.split("\n").at(-1) ?? "").includes("(END)"));
    // tmux writes a code where the attributes change: they hold across lines until the next.
    const screen = t.screen({ escapes: true });
    /** The attributes (1 bold, 2 dim, 3 italic) in force where `text` starts on the screen. */
    const attributesAt = (text: string): string[] => {
      const on = new Set<string>();
      for (const m of screen.slice(0, screen.indexOf(text)).matchAll(/\x1b\[([\d;]*)m/g))
        for (const code of (m[1] ?? "").split(";")) {
          if (code === "0" || code === "") on.clear();
          else if (code === "22") for (const c of ["1", "2"]) on.delete(c);
          else if (code === "23") on.delete("3");
          else if (code === "1" || code === "2" || code === "3") on.add(code);
        }
      return [...on];
    };
    expect(screen).toContain("second thought");
    for (const thought of ["first thought", "second thought", "third thought"]) {
      const codes = attributesAt(thought);
      expect(codes, thought).toContain("2");
      expect(codes, thought).toContain("3");
    }
    expect(attributesAt("the answer")).not.toContain("2");
    t.keys("q");
    expect(await t.exitCode()).toBe(0);
    t.kill();
  });

  for (const [what, args, env] of [
    ["--no-pager", ["show", LONG, "--no-pager"], {}],
    ["PAGER=cat", ["show", LONG], { PAGER: "cat" }],
    ["PI_SESSION_PAGER= (empty)", ["show", LONG], { PI_SESSION_PAGER: "", PAGER: "less" }],
  ] as const) {
    it(`${what} prints a long show without waiting`, async () => {
      const t = tmux();
      t.start([...args], { cwd: project, env: { ...env } });
      expect(await t.exitCode()).toBe(0);
      expect(t.screen()).toContain("long line 2999");
      t.kill();
    });
  }
});

describe("which pager, and when", () => {
  const copyPager = (name: string) => {
    const file = join(cli.home, `${name}.paged`);
    return { file, command: `tee ${file}` };
  };

  it("a terminal pages through PI_SESSION_PAGER, over PAGER", () => {
    const first = copyPager("first");
    const second = copyPager("second");
    const r = cli.runTty(["show", SHORT], {
      cwd: project,
      env: { PI_SESSION_PAGER: first.command, PAGER: second.command },
    });
    expect(r.code, r.out).toBe(0);
    expect(plain(readFileSync(first.file, "utf8"))).toContain("short line 1");
    expect(existsSync(second.file)).toBe(false);
  });

  it("PAGER when PI_SESSION_PAGER is unset; ls, tree, context and stats page too", () => {
    for (const args of [["ls"], ["tree", SHORT], ["context", SHORT], ["stats"]]) {
      const pager = copyPager(`p-${args[0]}`);
      const r = cli.runTty(args, { cwd: project, env: { PAGER: pager.command } });
      expect(r.code, r.out).toBe(0);
      expect(existsSync(pager.file), args.join(" ")).toBe(true);
    }
  });

  it("a pipe and --json never page", () => {
    const pager = copyPager("never");
    const piped = cli.run(["show", SHORT], { cwd: project, env: { PAGER: pager.command } });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain("short line 1");
    const json = cli.runTty(["show", SHORT, "--json"], { cwd: project, env: { PAGER: pager.command } });
    expect(json.code).toBe(0);
    expect(json.out).toContain('"short line 1"');
    expect(existsSync(pager.file)).toBe(false);
  });

  it("a pager that does not exist means plain output, without an error", () => {
    const r = cli.runTty(["show", SHORT], { cwd: project, env: { PAGER: "no-such-pager-at-all -x" } });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("short line 1");
    expect(r.out).not.toMatch(/not found|error/i);
  });

  it("an error prints no pager", () => {
    const pager = copyPager("error");
    const r = cli.runTty(["show", "no-such-session"], { cwd: project, env: { PAGER: pager.command } });
    expect(r.code).toBe(1);
    expect(r.out).toContain("no session with id or prefix");
    expect(existsSync(pager.file)).toBe(false);
  });
});
