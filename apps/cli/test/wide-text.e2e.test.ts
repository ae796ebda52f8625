/**
 * End-to-end: no output line of `ls`, `search`, `stats` or `show` is wider than the terminal,
 * at 60, 80 and 120 columns, over a store whose names, messages, projects and models are
 * generated from emoji (✅ ❌ ☕ ⚡, ZWJ families, flags, skin tones, `❤️`), CJK and ASCII. Under
 * a pseudo-terminal (`script`) whose width the CLI reads from the terminal itself (no
 * `COLUMNS`), each line measured with string-width's rule; and in tmux, whose own width tables
 * decide where a line wraps: the screen read with and without joined wrapped lines must agree.
 * tmux 3.3a draws a skin tone apart (4 columns) and `❤️` as one, unlike today's terminals, so its
 * store leaves those two out. The generated text comes from a seed (`FC_SEED` replays one).
 * @module-tag processes
 */
import { textWidth } from "@pi-session/render";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, Tmux, plain } from "./harness.js";

const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Date.now() % 1_000_000;
const EVERY_KIND = [
  "✅",
  "❌",
  "☕",
  "⚡",
  "🚀",
  "👨‍👩‍👧",
  "🇯🇵",
  "👍🏽",
  "❤️",
  "日本語",
  "完了",
  "한국",
  "ｗｉｄｅ",
];
const TMUX_AGREES = EVERY_KIND.filter((u) => u !== "👍🏽" && u !== "❤️");

/** Text of 1 to `max` pieces: emoji, CJK, words, spaces. */
function text(units: readonly string[], max: number): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.constantFrom(...units),
    fc.constantFrom("fix", "the", "parser", " ", " ", "-", "42"),
  );
  return fc.array(piece, { minLength: 1, maxLength: max }).map((p) => p.join("").trim() || "x");
}

interface Generated {
  cwd: string;
  name: string | null;
  first: string;
  answer: string;
  model: string;
}

function store(units: readonly string[], seed: number): { cli: CliHome; projects: string[] } {
  const cli = new CliHome("pi-session-wide-");
  const sessions = fc.sample(
    fc.record({
      cwd: fc.array(text(units, 4), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/")),
      name: fc.option(text(units, 12), { nil: null }),
      first: text(units, 30),
      answer: text(units, 60),
      model: text(units, 5),
    }),
    { seed, numRuns: 8 },
  ) as Generated[];
  const projects: string[] = [];
  sessions.forEach((s, i) => {
    const cwd = cli.dir("work", ...s.cwd.split("/").map((p) => p.replace(/^\.+$/, "dot")));
    projects.push(cwd);
    const t = (minute: number) => new Date(Date.UTC(2026, 2, 1 + i, 10, minute)).toISOString();
    const id = `${String(i + 1).padStart(8, "a")}-0000-4000-8000-000000000000`;
    const entries: Record<string, unknown>[] = [
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: t(1),
        message: { role: "user", content: s.first, timestamp: Date.parse(t(1)) },
      },
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: t(2),
        message: {
          role: "assistant",
          provider: "anthropic",
          model: s.model,
          content: [
            { type: "thinking", thinking: `${s.answer}\n${s.first}` },
            { type: "text", text: `${s.answer} fix` },
          ],
          usage: {
            input: 1200,
            output: 300,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 1500,
            cost: { total: 0.25 },
          },
          timestamp: Date.parse(t(2)),
        },
      },
    ];
    if (s.name !== null)
      entries.push({ type: "session_info", id: "n1", parentId: "a1", timestamp: t(3), name: s.name });
    cli.write({ id, cwd, created: t(0), entries });
  });
  return { cli, projects };
}

const COMMANDS = (projects: string[]): string[][] => [
  ["ls", "--all"],
  ["ls"],
  ["search", "fix"],
  ["stats", "--all"],
  ["stats", "--all", "--by", "session"],
  ["stats", "--all", "--by", "project", "--breakdown"],
  ["stats", "--all", "--by", "model"],
  ["show", "latest"],
  ["show", "latest", "--full"],
  ...projects.slice(0, 1).map(() => ["show", "aaaaaaa1"]),
];

describe(`every kind of wide text (seed ${SEED})`, () => {
  let made: { cli: CliHome; projects: string[] };
  beforeAll(() => {
    made = store(EVERY_KIND, SEED);
    // The session database is built once, before the widths are tried.
    expect(made.cli.run(["search", "fix"]).code).toBe(0);
  });
  afterAll(() => made.cli.cleanup());

  describe.each([60, 80, 120])("on a %i-column terminal", (cols) => {
    it("ls, search, stats and show print no line wider than it", () => {
      for (const args of COMMANDS(made.projects)) {
        const r = made.cli.runTty(args, { cols, cwd: made.projects[0] as string });
        expect(r.code, `${args.join(" ")}\n${r.out}`).toBe(0);
        const lines = plain(r.out).split("\n");
        const widest = lines.reduce((a, b) => (textWidth(b) > textWidth(a) ? b : a), "");
        expect(textWidth(widest), `${args.join(" ")}: ${widest}`).toBeLessThanOrEqual(cols);
      }
    });
  });
});

describe(`wide text in tmux, which wraps what is too wide (seed ${SEED})`, () => {
  let made: { cli: CliHome; projects: string[] };
  const panes: Tmux[] = [];
  beforeAll(() => {
    made = store(TMUX_AGREES, SEED + 1);
    expect(made.cli.run(["search", "fix"]).code).toBe(0);
  });
  afterAll(() => {
    for (const t of panes) t.kill();
    made.cli.cleanup();
  });

  it.each([60, 80, 120])("at %i columns nothing wraps", async (cols) => {
    for (const args of COMMANDS(made.projects)) {
      const t = new Tmux(made.cli, cols, 200);
      panes.push(t);
      t.start([...args, "--no-pager"], { cwd: made.projects[0] as string });
      expect(await t.exitCode(), args.join(" ")).toBe(0);
      const screen = t.screen();
      expect(t.screen({ joined: true }), `${args.join(" ")} at ${cols}:\n${screen}`).toBe(screen);
      t.kill();
    }
  });
});
