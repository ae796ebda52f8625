/**
 * Lines that are not clean JSON objects, read as pi 1.6.0 reads them (its `SessionManager` and
 * `loadEntriesFromFile` run here on copies of the same files): a line with invalid UTF-8 is
 * decoded with U+FFFD and kept when it parses; the first truthy parsed line decides whether the
 * file is a session. Then: such a line is written back byte for byte by every rewrite.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadEntriesFromFile, SessionManager } from "./index.js";

type Json = Record<string, unknown>;
interface PiManager {
  getCwd(): string;
  getEntries(): Json[];
  getLeafId(): string | null;
  buildSessionContext(): { messages: Json[] };
}
interface PiModule {
  SessionManager: { open(path: string, sessionDir?: string, cwdOverride?: string): PiManager };
  loadEntriesFromFile(path: string): Json[];
}
// pi 1.6.0 itself, a devDependency of the conformance package (its exports hide dist/core).
const piUrl = new URL(
  "../../../packages/conformance/node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js",
  import.meta.url,
);
const pi = (await import(piUrl.href)) as PiModule;

const cacheHome = mkdtempSync(join(tmpdir(), "pi-sdk-cache-"));
process.env.XDG_CACHE_HOME = cacheHome;
afterAll(() => rmSync(cacheHome, { recursive: true, force: true }));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-sdk-lines-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const header = (cwd = "/work/p", version = 3) =>
  Buffer.from(
    JSON.stringify({ type: "session", version, id: "s1", timestamp: "2024-01-01T00:00:00.000Z", cwd }),
  );
const user = (id: string, parentId: string | null, text: string) =>
  Buffer.from(
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: "2024-01-01T00:00:01.000Z",
      message: { role: "user", content: text, timestamp: 1 },
    }),
  );
/** `line` with every `~` replaced by the byte 0xff (invalid UTF-8 anywhere). */
const withFF = (line: Buffer) => Buffer.from(line.map((b) => (b === 0x7e ? 0xff : b)));
/** `line` with every `~` replaced by the latin-1 byte 0xe9 (é in latin-1, invalid UTF-8 here). */
const withLatin1 = (line: Buffer) => Buffer.from(line.map((b) => (b === 0x7e ? 0xe9 : b)));
const file = (...lines: Buffer[]) => Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")]));

/** The same bytes in two files: one for pi, one for us. */
function twin(name: string, bytes: Buffer): { ours: string; theirs: string } {
  const ours = join(dir, `${name}.jsonl`);
  const theirs = join(dir, `${name}-pi.jsonl`);
  writeFileSync(ours, bytes);
  writeFileSync(theirs, bytes);
  return { ours, theirs };
}

const opened = (
  open: () => {
    getCwd(): string;
    getEntries(): unknown[];
    getLeafId(): string | null;
    buildSessionContext(): { messages: unknown[] };
  },
) => {
  try {
    const s = open();
    return {
      cwd: s.getCwd(),
      entries: s.getEntries(),
      leaf: s.getLeafId(),
      messages: s.buildSessionContext().messages,
    };
  } catch (error) {
    return { threw: (error as Error).message.replace(dir, "<dir>").replace("-pi.jsonl", ".jsonl") };
  }
};

describe("lines as pi 1.6.0 reads them", () => {
  const damaged: [string, Buffer][] = [
    [
      "user message with a 0xff byte",
      file(header(), user("a", null, "hi"), withFF(user("b", "a", "x~y")), user("c", "b", "after")),
    ],
    ["header with a latin-1 byte in its cwd", file(withLatin1(header("/work/caf~")), user("a", null, "hi"))],
    ["first line [1]", file(Buffer.from("[1]"), header(), user("a", null, "hi"))],
    ["first line 7", file(Buffer.from("7"), header(), user("a", null, "hi"))],
    ['first line "x"', file(Buffer.from('"x"'), header(), user("a", null, "hi"))],
    [
      "falsy lines before the header",
      file(Buffer.from('0\nnull\nfalse\n""'), header(), user("a", null, "hi")),
    ],
    ["a 0xff line that does not parse", file(header(), user("a", null, "hi"), Buffer.from([0x7b, 0xff]))],
  ];
  it.each(damaged)("%s: open and loadEntriesFromFile give pi's results", (_name, bytes) => {
    const { ours, theirs } = twin("s", bytes);
    expect(opened(() => SessionManager.open(ours))).toEqual(opened(() => pi.SessionManager.open(theirs)));
    expect(loadEntriesFromFile(ours)).toEqual(pi.loadEntriesFromFile(theirs));
    expect(readFileSync(ours).equals(bytes)).toBe(true); // reading never writes
  });

  it("the user message with a 0xff byte is in the context, its child is no orphan", () => {
    const { ours } = twin("s", damaged[0]?.[1] as Buffer);
    const s = SessionManager.open(ours);
    expect(s.getBranch().map((e) => e.id)).toEqual(["a", "b", "c"]);
    expect(s.buildSessionContext().messages.map((m) => (m as { content: string }).content)).toEqual([
      "hi",
      "x\uFFFDy",
      "after",
    ]);
  });

  it("continueRecent opens a session whose header has a latin-1 byte", () => {
    const sessions = join(dir, "sessions");
    mkdirSync(sessions);
    const path = join(sessions, "2024-01-01T00-00-00-000Z_s1.jsonl");
    writeFileSync(path, file(withLatin1(header("/work/caf~")), user("a", null, "hi")));
    const s = SessionManager.continueRecent("/work/caf\uFFFD", sessions);
    expect(s.getSessionFile()).toBe(path);
    expect(s.getEntries().map((e) => e.id)).toEqual(["a"]);
  });

  it("forkFrom copies the entry with a 0xff byte (as pi reads it); a non-object first line is no session", () => {
    const { ours } = twin("s", damaged[0]?.[1] as Buffer);
    const fork = SessionManager.forkFrom(ours, "/work/q", join(dir, "forks"));
    expect(fork.getEntries().map((e) => e.id)).toEqual(["a", "b", "c"]);
    const bad = twin("bad", damaged[2]?.[1] as Buffer).ours;
    expect(() => SessionManager.forkFrom(bad, "/work/q", join(dir, "forks"))).toThrow(
      "Cannot fork: source session file is empty or invalid",
    );
  });

  it("entries another process appended with a 0xff byte are absorbed", () => {
    const s = SessionManager.create("/work/p", dir);
    const a = s.appendMessage({ role: "user", content: "q", timestamp: 1 });
    s.appendMessage({ role: "assistant", content: [], timestamp: 2 } as never);
    const path = s.getSessionFile() as string;
    appendFileSync(path, file(withFF(user("foreign", a, "f~"))));
    const seen: string[] = [];
    s.onForeignEntries((entries) => seen.push(...entries.map((e) => e.id)));
    s.appendMessage({ role: "user", content: "next", timestamp: 3 });
    expect(seen).toEqual(["foreign"]);
    expect(s.getEntry("foreign")?.parentId).toBe(a);
    s.close();
  });
});

describe("a line read through U+FFFD is written back byte for byte", () => {
  const ff = withFF(user("b", "a", "x~y"));
  const count = (haystack: Buffer, needle: Buffer) => {
    let n = 0;
    for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) n++;
    return n;
  };

  it("by the migration of a v2 file (at the first append)", () => {
    const path = join(dir, "v2.jsonl");
    writeFileSync(path, file(header("/work/p", 2), user("a", null, "hi"), ff));
    const s = SessionManager.open(path);
    expect(s.getLeafId()).toBe("b");
    s.appendMessage({ role: "user", content: "more", timestamp: 3 });
    s.close();
    const after = readFileSync(path);
    expect(count(after, Buffer.concat([Buffer.from("\n"), ff, Buffer.from("\n")]))).toBe(1);
    expect(JSON.parse(after.toString("utf8").split("\n")[0] as string).version).toBe(3);
    const reopened = SessionManager.open(path);
    expect(reopened.getBranch().map((e) => e.id)).toEqual(["a", "b", reopened.getLeafId()]);
  });

  it("by the first append to a file with a torn fragment (the fragment goes to a sidecar)", () => {
    const path = join(dir, "torn.jsonl");
    writeFileSync(
      path,
      Buffer.concat([file(header(), user("a", null, "hi"), ff), Buffer.from('{"type":"mess')]),
    );
    const s = SessionManager.open(path);
    s.appendMessage({ role: "user", content: "more", timestamp: 3 });
    s.close();
    const after = readFileSync(path);
    expect(count(after, ff)).toBe(1);
    expect(
      after.subarray(0, after.indexOf(ff) + ff.length + 1).equals(file(header(), user("a", null, "hi"), ff)),
    ).toBe(true);
    const sidecars = readdirSync(dir).filter((f) => f.startsWith("torn.jsonl.torn-"));
    expect(sidecars.map((f) => readFileSync(join(dir, f), "utf8"))).toEqual(['{"type":"mess']);
  });

  it("createBranchedSession leaves the source's bytes as they were", () => {
    const path = join(dir, "src.jsonl");
    const bytes = file(header(), user("a", null, "hi"), ff, user("c", "b", "after"));
    writeFileSync(path, bytes);
    const s = SessionManager.open(path, dir);
    const branched = s.createBranchedSession("c") as string;
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(
      SessionManager.open(branched)
        .getBranch()
        .map((e) => e.id),
    ).toEqual(["a", "b", "c"]);
    expect(readdirSync(dir).filter((f) => f.endsWith(".jsonl")).length).toBe(2);
  });
});
