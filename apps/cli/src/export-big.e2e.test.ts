/**
 * `export` of a session bigger than the heap of the process that exports it (issue 37,
 * finding 11: a 2-million-entry, 1.2 GB session aborted V8 with exit 134). A generated v3
 * session (user, assistant and tool-result turns of about 600 bytes, side branches, labels, a
 * name) of `PI_SESSION_BIG_TEST_MB` (default 48) is exported by the built CLI run with
 * `--max-old-space-size` at half the file (at least 32 MB): Markdown, JSON and JSONL stream (to
 * a file, and JSONL to a pipe read as it comes), exit 0 and hold every entry of the branch;
 * an HTML page, and every branch as Markdown, which hold the session in memory, are refused
 * with a message saying why and what works instead (exit 1). Never exit 134.
 *
 * Build first (`pnpm build`).
 * @module-tag big-file
 */
import { spawn } from "node:child_process";
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "pi-session.cjs");
const MB = Number(process.env.PI_SESSION_BIG_TEST_MB ?? "48");
/** The exporting process's heap: smaller than the file, so only a streamed export fits. */
const HEAP_MB = Math.max(32, Math.floor(MB / 2));
const TIMEOUT = 30 * 60_000;

let dir: string;
let file: string;
/** What the generator wrote: entries on the branch, user messages on it. */
let written: { entries: number; onBranch: number; users: number; bytes: number };

/** Writes the session line by line (never whole in memory). */
function generate(path: string, bytes: number): typeof written {
  const fd = openSync(path, "w");
  let size = 0;
  let entries = 0;
  let onBranch = 0;
  let users = 0;
  const write = (value: object, branch = true) => {
    const line = `${JSON.stringify(value)}\n`;
    size += Buffer.byteLength(line);
    writeSync(fd, line);
    entries++;
    if (branch) onBranch++;
  };
  let t = Date.UTC(2026, 0, 1);
  const at = () => {
    t += 1000;
    return new Date(t).toISOString();
  };
  const id = (n: number) => n.toString(16).padStart(8, "0");
  const filler = "the parser reads <T> and `code`, see [docs](https://example.com/a) here. ".repeat(5);
  writeSync(
    fd,
    `${JSON.stringify({ type: "session", version: 3, id: "019b0000-0000-7000-8000-00000000b16f", timestamp: at(), cwd: "/work/big" })}\n`,
  );
  let parent: string | null = null;
  let n = 0;
  let turn = 0;
  while (size < bytes) {
    turn++;
    const user = id(++n);
    write({
      type: "message",
      id: user,
      parentId: parent,
      timestamp: at(),
      message: { role: "user", content: [{ type: "text", text: `question ${n}: ${filler}` }], timestamp: t },
    });
    users++;
    const assistant = id(++n);
    const read = turn % 3 === 0;
    write({
      type: "message",
      id: assistant,
      parentId: user,
      timestamp: at(),
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `answer ${n}` },
          {
            type: "toolCall",
            id: `call_${n}`,
            name: read ? "read" : "bash",
            arguments: read ? { path: `src/f${n}.ts` } : { command: `grep -n x src/f${n}.ts` },
          },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 100,
          output: 20,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 120,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 },
        },
        stopReason: "toolUse",
        timestamp: t,
      },
    });
    const result = id(++n);
    write({
      type: "message",
      id: result,
      parentId: assistant,
      timestamp: at(),
      message: {
        role: "toolResult",
        toolCallId: `call_${n - 1}`,
        toolName: read ? "read" : "bash",
        content: [{ type: "text", text: `out ${n}: ${filler}` }],
        isError: false,
        timestamp: t,
      },
    });
    parent = result;
    if (n % 3000 === 0) {
      // A side question off the assistant message (another branch), and a label on the branch.
      write(
        {
          type: "message",
          id: id(++n),
          parentId: assistant,
          timestamp: at(),
          message: { role: "user", content: "a side question", timestamp: t },
        },
        false,
      );
      const label = id(++n);
      write({
        type: "label",
        id: label,
        parentId: parent,
        timestamp: at(),
        targetId: user,
        label: `mark ${n}`,
      });
      parent = label;
    }
  }
  write({ type: "session_info", id: id(++n), parentId: parent, timestamp: at(), name: "a big session" });
  closeSync(fd);
  return { entries, onBranch, users, bytes: size };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Bytes on stdout (counted as they came, not kept). */
  stdoutBytes: number;
  /** Lines on stdout. */
  stdoutLines: number;
}

/** The CLI under a heap smaller than the file. */
function exportRun(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, BIN, "export", file, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdoutBytes = 0;
  let stdoutLines = 0;
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdout.on("data", (c: Buffer) => {
    stdoutBytes += c.length;
    for (const byte of c) if (byte === 10) stdoutLines++;
  });
  return new Promise((done) =>
    child.on("close", (code, signal) => done({ code, signal, stderr, stdoutBytes, stdoutLines })),
  );
}

/** Occurrences of `needle` (one line's worth at most) in a file, read in chunks. */
async function count(path: string, needle: string): Promise<number> {
  let n = 0;
  let carry = "";
  for await (const chunk of createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as string);
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
    carry = text.slice(Math.max(0, text.length - needle.length + 1));
    // What the carry holds was counted only if a whole needle fit in it, which it cannot.
  }
  return n;
}

async function head(path: string, bytes: number): Promise<string> {
  for await (const chunk of createReadStream(path, { encoding: "utf8", start: 0, end: bytes - 1 }))
    return chunk as string;
  return "";
}

async function tail(path: string, bytes: number): Promise<string> {
  const size = statSync(path).size;
  let out = "";
  for await (const chunk of createReadStream(path, { encoding: "utf8", start: Math.max(0, size - bytes) }))
    out += chunk;
  return out;
}

describe(`export of a ${MB} MB session with a ${HEAP_MB} MB heap`, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pi-session-big-export-"));
    file = join(dir, "big.jsonl");
    written = generate(file, MB * 1024 * 1024);
  }, TIMEOUT);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "JSONL streams: every entry of the branch, to a file and to a pipe",
    async () => {
      const out = join(dir, "branch.jsonl");
      const run = await exportRun(["--format", "jsonl", "-o", out]);
      expect(run.signal, run.stderr).toBeNull();
      expect(run.code, run.stderr).toBe(0);
      expect(await count(out, "\n")).toBe(written.onBranch + 1);
      expect(await head(out, 40)).toContain('{"type":"session","version":3');
      expect(await tail(out, 200)).toContain('"name":"a big session"');
      const piped = await exportRun(["--format", "jsonl"]);
      expect(piped.code, piped.stderr).toBe(0);
      expect(piped.stdoutLines).toBe(written.onBranch + 1);
      expect(piped.stdoutBytes).toBe(statSync(out).size);
    },
    TIMEOUT,
  );

  it(
    "JSON streams: the document's head, then an item per entry of the branch",
    async () => {
      const out = join(dir, "branch.json");
      const run = await exportRun(["--format", "json", "-o", out]);
      expect(run.code, run.stderr).toBe(0);
      const start = await head(out, 4096);
      expect(start).toMatch(/^\{\n {2}"format": "pi-session-document",/);
      expect(start).toContain(`"entryCount": ${written.entries}`);
      expect(start).toContain('"title": "a big session"');
      expect(await tail(out, 16)).toMatch(/\n {4}\}\n {2}\]\n\}\n$/);
      expect(await count(out, '\n    {\n      "kind": ')).toBe(written.onBranch);
      // A read call's result is in the language of its path.
      expect(await count(out, '"language": "ts"')).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "Markdown streams: a turn per user message of the branch",
    async () => {
      const out = join(dir, "branch.md");
      const run = await exportRun(["--format", "md", "-o", out]);
      expect(run.code, run.stderr).toBe(0);
      expect(await head(out, 20)).toBe("# a big session\n\n- *");
      expect(await count(out, "\n## Turn ")).toBe(written.users);
      expect(await count(out, "> ↳ Branch 1 of 2")).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "what must hold the session is refused with a reason, not a crash",
    async () => {
      const html = await exportRun(["--format", "html", "-o", join(dir, "page.html")]);
      expect(html.code, html.stderr).toBe(1);
      expect(html.signal).toBeNull();
      expect(html.stderr).toMatch(/is too large (for an HTML page|to export as html in memory)/);
      expect(html.stderr).toContain(
        "Export it as Markdown, JSON or JSONL (the branch view streams them, at any size)",
      );
      const every = await exportRun(["--format", "md", "--all-branches", "-o", join(dir, "all.md")]);
      expect(every.code, every.stderr).toBe(1);
      expect(every.stderr).toContain("too large to export as md in memory");
      expect(every.stderr).toContain(
        "The branch view (without --all-branches or --context) exports Markdown, JSON and JSONL streamed",
      );
    },
    TIMEOUT,
  );
});
