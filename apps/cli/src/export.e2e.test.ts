/**
 * `pi-session export` on the example sessions, pi's real compacted session and planted
 * secrets: every format, the files it writes (images beside the Markdown), redaction and its
 * report, and the usage errors. The program runs in this process (`test/in-process.ts`).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed JSON output.
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PLANTED_SECRETS, upstreamFixture } from "@pi-session/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runInProcess } from "../test/in-process.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const here = dirname(fileURLToPath(import.meta.url));
const EXAMPLES = resolve(here, "..", "..", "..", "examples", "sessions");
const V3 = "--home-dev-projects-webapp--/2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl";

let home: string;
let sessions: string;
let v3: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Result> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
    TZ: "UTC",
  };
  return runInProcess(args, { env, cwd: home });
}

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** Fake credentials in their providers' formats (testkit's corpus), one of each kind used. */
const planted = (kind: string) => PLANTED_SECRETS.find((p) => p.kind === kind)?.secret as string;
const SECRETS = {
  openai: planted("openai"),
  anthropic: planted("anthropic"),
  github: planted("github"),
  aws: planted("aws"),
};

/** A session with an image, a long tool output and planted secrets. */
function writeExtraSession(path: string): void {
  const t = (i: number) => new Date(Date.UTC(2026, 0, 1, 10, i)).toISOString();
  const lines = [
    {
      type: "session",
      version: 3,
      id: "77aa0000-0000-4000-8000-0000000000ee",
      timestamp: t(0),
      cwd: "/work/demo",
    },
    {
      type: "message",
      id: "c1",
      parentId: null,
      timestamp: t(1),
      message: {
        role: "user",
        content: [
          { type: "text", text: `Deploy with OPENAI_API_KEY=${SECRETS.openai} please` },
          { type: "image", data: PNG, mimeType: "image/png" },
        ],
        timestamp: 1,
      },
    },
    {
      type: "message",
      id: "c2",
      parentId: "c1",
      timestamp: t(2),
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "check the env", thinkingSignature: "SIGNATURE-BLOB" },
          {
            type: "toolCall",
            id: "t1",
            name: "bash",
            arguments: { command: `curl -H 'x-api-key: ${SECRETS.anthropic}'` },
          },
        ],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 1,
          output: 1,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 2,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "toolUse",
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: "c3",
      parentId: "c2",
      timestamp: t(3),
      message: {
        role: "toolResult",
        toolCallId: "t1",
        toolName: "bash",
        content: [
          {
            type: "text",
            text: `${Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n")}\ntoken ${SECRETS.github} key ${SECRETS.aws} internal-XYZ-42`,
          },
        ],
        isError: false,
        timestamp: 3,
      },
    },
  ];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

let extra: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "pi-session-export-"));
  sessions = join(home, ".pi", "agent", "sessions");
  mkdirSync(sessions, { recursive: true });
  cpSync(EXAMPLES, sessions, { recursive: true });
  v3 = join(sessions, V3);
  extra = join(home, "extra.jsonl");
  writeExtraSession(extra);
});

afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
});

describe("export", () => {
  it("Markdown to stdout by default: the current branch, headings per turn, fenced tool calls", async () => {
    const r = await run(["export", v3]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^# upload rate limiting\n/);
    expect(r.stdout).toContain("## Turn 1 · 2026-11-02 09:14 UTC");
    expect(r.stdout).toContain("```sh\nrg -n 'upload' src/routes\n```");
    expect(r.stdout).toContain("Keep it in memory for now.");
    expect(r.stdout).not.toContain("Use Redis for the counters.");
    const other = (await run(["export", v3, "--leaf", "b2000009"])).stdout;
    expect(other).toContain("Use Redis for the counters.");
    const all = (await run(["export", v3, "--all-branches"])).stdout;
    expect(all).toContain("Use Redis for the counters.");
    expect(all).toContain("Keep it in memory for now.");
    expect(all).toContain("↳ Branch 2 of 2");
  });

  it("cuts long output with a note; --full keeps it whole", async () => {
    const cut = (await run(["export", extra])).stdout;
    expect(cut).toMatch(/… 1\d\d more lines \([\d.]+ KB\) cut; `pi-session export --full` keeps them/);
    expect(cut).not.toContain("line 150");
    const full = (await run(["export", extra, "--full"])).stdout;
    expect(full).toContain("line 150");
    expect(full).toContain("line 199");
  });

  it("-o writes the file and the images beside it; without -o images are left out with a note", async () => {
    const out = join(home, "out", "demo.md");
    mkdirSync(dirname(out), { recursive: true });
    const r = await run(["export", extra, "-o", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`wrote ${out}`);
    const md = readFileSync(out, "utf8");
    expect(md).toContain("![image 1](demo-images/image-1.png)");
    expect(readFileSync(join(dirname(out), "demo-images", "image-1.png")).toString("base64")).toBe(PNG);
    expect(readdirSync(dirname(out)).filter((f) => f.includes(".tmp-"))).toEqual([]);
    expect((await run(["export", extra])).stdout).toMatch(/image 1 left out: image\/png, 70 B/);
  });

  it("HTML: one self-contained page with a strict Content-Security-Policy", async () => {
    const out = join(home, "page.html");
    expect((await run(["export", v3, "-o", out])).code).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-/,
    );
    expect(html).toContain('<meta name="generator" content="pi-session ');
    // Nothing to fetch: no src/href attributes, no remote URLs in the page's own markup.
    const markup = html
      .replace(/<script[^>]*>[\s\S]*?<\/script>/g, "")
      .replace(/<style>[\s\S]*?<\/style>/, "");
    expect(markup).not.toMatch(/\b(src|href)=/);
    // The page's script and style are what the policy names: the hashes were made of the text
    // the bundle ships.
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/
      .exec(html)?.[1]
      ?.replaceAll("&#39;", "'");
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    expect(script.length).toBeGreaterThan(10_000);
    expect(style.length).toBeGreaterThan(1_000);
    const sha = (text: string) => createHash("sha256").update(text).digest("base64");
    expect(policy).toContain(`script-src 'sha256-${sha(script)}'`);
    expect(policy).toContain(`style-src 'sha256-${sha(style)}'`);
    // To stdout when it is not a terminal (a pipe here).
    const piped = await run(["export", v3, "--format", "html"]);
    expect(piped.code).toBe(0);
    expect(piped.stdout.startsWith("<!doctype html>")).toBe(true);
  });

  it("JSON: the document model of the chosen view", async () => {
    const branch = JSON.parse((await run(["export", v3, "--format", "json"])).stdout);
    expect(branch.format).toBe("pi-session-document");
    expect(branch.view).toEqual({ kind: "branch", leafId: "b2000022" });
    expect(branch.session).toMatchObject({
      id: "019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f",
      name: "upload rate limiting",
    });
    const context = JSON.parse((await run(["export", v3, "--context", "--json"])).stdout);
    const expected = JSON.parse((await run(["context", v3, "--json"])).stdout);
    expect(context.view.kind).toBe("context");
    expect(context.items.map((i: any) => i.role)).toEqual(expected.messages.map((m: any) => m.role));
    const all = JSON.parse((await run(["export", v3, "--all-branches", "--format", "json"])).stdout);
    expect(all.items).toHaveLength(22);
  });

  it("JSONL: the branch as a valid v3 file, header first, leaf last; a v1 file comes out as v3", async () => {
    const out = join(home, "branch.jsonl");
    expect((await run(["export", v3, "--leaf", "b2000009", "-o", out])).code).toBe(0);
    const lines = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", version: 3 });
    expect(lines.at(-1).id).toBe("b2000009");
    expect(lines.map((l: any) => l.id).slice(1)).toEqual([
      "b2000001",
      "b2000002",
      "b2000003",
      "b2000004",
      "b2000005",
      "b2000006",
      "b2000007",
      "b2000008",
      "b2000009",
    ]);
    expect((await run(["validate", out])).code).toBe(0);
    const fromV1 = join(home, "v1.jsonl");
    expect(
      (await run(["export", upstreamFixture("before-compaction"), "--format", "jsonl", "-o", fromV1])).code,
    ).toBe(0);
    const v = await run(["validate", fromV1, "--json"]);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout).files[0].version).toBe(3);
    const every = (await run(["export", v3, "--all-branches", "--format", "jsonl"])).stdout
      .trimEnd()
      .split("\n");
    expect(every).toHaveLength(23);
  });

  it("--redact removes secrets and signatures and reports counts by kind on stderr", async () => {
    for (const format of ["md", "html", "json", "jsonl"]) {
      const r = await run([
        "export",
        extra,
        "--format",
        format,
        "--full",
        "--redact",
        "--redact-pattern",
        "internal-[A-Z]+-\\d+",
      ]);
      expect(r.code, format).toBe(0);
      for (const secret of [...Object.values(SECRETS), "SIGNATURE-BLOB", "internal-XYZ-42"])
        expect(r.stdout, `${format}: ${secret}`).not.toContain(secret);
      expect(r.stderr).toBe("redacted 6: anthropic 1, aws 1, github 1, openai 1, pattern 1, signature 1\n");
    }
    const md = (await run(["export", extra, "--full", "--redact"])).stdout;
    expect(md).toContain("OPENAI_API_KEY=[REDACTED:openai]");
    expect((await run(["export", v3, "--redact"])).stderr).toBe("redacted 1: signature 1\n");
  });

  it("without --redact, warns that the exported text holds secrets, by kind", async () => {
    const r = await run(["export", extra, "--full"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(SECRETS.github);
    // Each time a secret is in the text counts (the first message is the title too; a call's
    // command heads its result as well).
    const times = (secret: string) => r.stdout.split(secret).length - 1;
    const openai = times(SECRETS.openai);
    const anthropic = times(SECRETS.anthropic);
    expect(openai).toBeGreaterThan(0);
    expect(anthropic).toBeGreaterThan(0);
    expect(r.stderr).toBe(
      `warning: the export holds ${openai + anthropic + 2} secrets (openai ${openai}, anthropic ${anthropic}, github 1, aws 1); --redact replaces them with markers\n`,
    );
    for (const secret of Object.values(SECRETS)) expect(r.stderr).not.toContain(secret);
    expect((await run(["export", v3])).stderr).toBe("");
  });

  it("usage errors exit 2 with a clear message", async () => {
    const cases: [string[], RegExp][] = [
      [["export", v3, "--format", "pdf"], /--format pdf: not one of md, html, json, jsonl/],
      [["export", v3, "--context", "--format", "jsonl"], /--context has no JSONL form/],
      [["export", v3, "--context", "--all-branches"], /different views/],
      [["export", v3, "--leaf", "nope"], /--leaf nope: no entry with that id/],
      [["export", v3, "--leaf", "b2000009", "--all-branches"], /do not go together/],
      [["export", v3, "--redact-pattern", "("], /--redact-pattern: redaction pattern "\(":/],
      [["export", v3, "--redact-pattern", "x*"], /matches the empty string/],
      [["export", v3, "--json", "--format", "md"], /disagree/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
    const missing = await run(["export", join(home, "nope.jsonl")]);
    expect(missing.code).toBe(1);
  });
});
