/**
 * The manager-level behaviours of docs/format.md "Test vectors" (21 to 44, numbered as
 * there), then the places where this SDK is deliberately safer than pi 1.6.0.
 */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { upstreamFixture } from "@pi-session/testkit";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type AgentMessage,
  buildSessionContext,
  findMostRecentSession,
  loadEntriesFromFile,
  migrateSessionEntries,
  openReadonly,
  type SessionEntry,
  SessionManager,
} from "./index.js";

const zeroUsage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const U = (text: string, timestamp = 1): AgentMessage => ({ role: "user", content: text, timestamp });
const A = (text: string, extra: Record<string, unknown> = {}): AgentMessage =>
  ({
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-test",
    stopReason: "stop",
    usage: zeroUsage,
    timestamp: 2,
    ...extra,
  }) as AgentMessage;

// Listing caches go to a temp dir, never into the real ~/.cache.
const cacheHome = mkdtempSync(join(tmpdir(), "pi-sdk-cache-"));
process.env.XDG_CACHE_HOME = cacheHome;
afterAll(() => rmSync(cacheHome, { recursive: true, force: true }));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-sdk-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const roles = (messages: AgentMessage[]) => messages.map((m) => m.role);
const texts = (messages: AgentMessage[]) =>
  messages.map((m) => {
    const c = (m as { content?: unknown }).content;
    if (typeof c === "string") return c;
    if (Array.isArray(c)) return (c as { text?: string }[]).map((b) => b.text).join("");
    return (m as { summary?: string }).summary;
  });

describe("ids and timestamps of appended entries (decision 132)", () => {
  it("ids are 8 lowercase hex digits, unique, every digit used, past many refills of the random pool", () => {
    const sm = SessionManager.inMemory("/p");
    const ids = Array.from({ length: 5000 }, (_, i) => sm.appendMessage(U(`m${i}`)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.join("")).size).toBe(16);
  });

  it("a timestamp is new Date().toISOString() of the millisecond it is made in, also when the clock moves", () => {
    const sm = SessionManager.inMemory("/p");
    const clock = vi.spyOn(Date, "now");
    try {
      const times = [
        1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 1_600_000_000_000, 1_600_000_000_000,
      ];
      for (const t of times) {
        clock.mockReturnValueOnce(t);
        sm.appendMessage(U("x"));
      }
      expect(sm.getEntries().map((e) => e.timestamp)).toEqual(times.map((t) => new Date(t).toISOString()));
    } finally {
      clock.mockRestore();
    }
    const before = Date.now();
    sm.appendMessage(U("real clock"));
    const stamp = sm.getEntries().at(-1)?.timestamp as string;
    expect(new Date(stamp).toISOString()).toBe(stamp);
    expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stamp)).toBeLessThanOrEqual(Date.now());
  });
});

describe("7.6 leaf selection and orphans", () => {
  const e = (id: string, parentId: string | null, message: AgentMessage): SessionEntry =>
    ({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:00.000Z", message }) as SessionEntry;

  it("22: an unknown leaf falls back to the last entry", () => {
    const entries = [e("1", null, U("a")), e("2", "1", A("b"))];
    expect(buildSessionContext(entries, "nonexistent").messages).toHaveLength(2);
  });

  it("23: an orphan's path starts at the orphan", () => {
    const entries = [e("1", null, U("a")), e("2", "missing", A("b"))];
    expect(roles(buildSessionContext(entries, "2").messages)).toEqual(["assistant"]);
  });

  it("24: a null leaf gives an empty context even with model changes", () => {
    const entries = [
      e("1", null, U("a")),
      {
        type: "model_change",
        id: "2",
        parentId: "1",
        timestamp: "t",
        provider: "p",
        modelId: "m",
      } as SessionEntry,
    ];
    expect(buildSessionContext(entries, null)).toEqual({ messages: [], thinkingLevel: "off", model: null });
  });

  it("25: a label appended after branch() re-points the session on reload", () => {
    const sm = SessionManager.create(dir, dir);
    const id1 = sm.appendMessage(U("one"));
    sm.appendMessage(A("two"));
    const id3 = sm.appendMessage(U("three"));
    sm.branch(id1);
    const label = sm.appendLabelChange(id3, "x");
    expect(sm.getEntry(label)?.parentId).toBe(id1);
    const reopened = SessionManager.open(sm.getSessionFile() as string);
    expect(reopened.getLeafId()).toBe(label);
    expect(reopened.getBranch().map((x) => x.id)).toEqual([id1, label]);
    expect(texts(reopened.buildSessionContext().messages)).toEqual(["one"]);
  });
});

describe("7.7 labels", () => {
  it("26: set, clear, last wins, unknown target throws", () => {
    const sm = SessionManager.inMemory();
    const u = sm.appendMessage(U("hi"));
    sm.appendLabelChange(u, "checkpoint");
    expect(sm.getLabel(u)).toBe("checkpoint");
    expect(sm.buildSessionContext().messages).toHaveLength(1);
    sm.appendLabelChange(u, undefined);
    expect(sm.getLabel(u)).toBeUndefined();
    for (const l of ["first", "second", "third"]) sm.appendLabelChange(u, l);
    expect(sm.getLabel(u)).toBe("third");
    expect(() => sm.appendLabelChange("non-existent", "x")).toThrow("Entry non-existent not found");
  });

  it("27: createBranchedSession keeps only on-path labels, re-created with their timestamps", () => {
    const sm = SessionManager.inMemory();
    const m1 = sm.appendMessage(U("1"));
    const m2 = sm.appendMessage(A("2"));
    const m3 = sm.appendMessage(U("3"));
    sm.appendLabelChange(m1, "L1");
    sm.appendLabelChange(m2, "L2");
    sm.appendLabelChange(m3, "L3");
    const tree = sm.getTree();
    const stamp = (id: string) => {
      const find = (nodes: typeof tree): string | undefined => {
        for (const n of nodes) {
          if (n.entry.id === id) return n.labelTimestamp;
          const inner = find(n.children);
          if (inner) return inner;
        }
        return undefined;
      };
      return find(tree);
    };
    const t1 = stamp(m1);
    expect(sm.createBranchedSession(m2)).toBeUndefined();
    const entries = sm.getEntries();
    expect(entries.map((x) => x.type)).toEqual(["message", "message", "label", "label"]);
    expect(entries[1]?.parentId).toBe(m1);
    expect(sm.getLabel(m1)).toBe("L1");
    expect(sm.getLabel(m2)).toBe("L2");
    expect(sm.getLabel(m3)).toBeUndefined();
    expect(entries[2]?.timestamp).toBe(t1);
  });

  it("27b: a label inside the path is dropped, the path re-chained and firstKeptEntryId redirected", () => {
    const sm = SessionManager.inMemory();
    const u1 = sm.appendMessage(U("1"));
    const label = sm.appendLabelChange(u1, "mark");
    const a1 = sm.appendMessage(A("2"));
    const sm2 = SessionManager.inMemory(undefined, undefined, [
      ...sm.getEntries(),
      {
        type: "compaction",
        id: "cccccccc",
        parentId: a1,
        timestamp: "2025-01-01T00:00:00.000Z",
        summary: "S",
        firstKeptEntryId: label,
        tokensBefore: 1,
      } as SessionEntry,
    ]);
    sm2.createBranchedSession("cccccccc");
    const byId = new Map(sm2.getEntries().map((x) => [x.id, x]));
    expect(byId.has(label)).toBe(false);
    expect(byId.get(a1)?.parentId).toBe(u1);
    expect((byId.get("cccccccc") as { firstKeptEntryId?: string }).firstKeptEntryId).toBe(a1);
  });
});

describe("7.8 branching through SessionManager", () => {
  it("28: branch then append forks the tree", () => {
    const sm = SessionManager.inMemory();
    sm.appendMessage(U("msg1"));
    const two = sm.appendMessage(A("msg2"));
    sm.appendMessage(U("msg3"));
    sm.branch(two);
    sm.appendMessage(A("msg4-branch"));
    expect(texts(sm.buildSessionContext().messages)).toEqual(["msg1", "msg2", "msg4-branch"]);
    const node2 = sm.getTree()[0]?.children[0];
    expect(node2?.entry.id).toBe(two);
    expect(node2?.children).toHaveLength(2);
    expect(() => sm.branch("nope")).toThrow("Entry nope not found");
  });

  it("21: branchWithSummary(null) makes a second root with fromId = previous leaf", () => {
    const sm = SessionManager.inMemory();
    sm.appendMessage(U("a"));
    const leaf = sm.appendMessage(A("b"));
    const id = sm.branchWithSummary(null, "S");
    const entry = sm.getEntry(id) as { parentId: string | null; fromId: string };
    expect(entry.parentId).toBeNull();
    expect(entry.fromId).toBe(leaf);
    expect(sm.getLeafId()).toBe(id);
    expect(roles(sm.buildSessionContext().messages)).toEqual(["branchSummary"]);
    expect(sm.getTree()).toHaveLength(2);
    sm.resetLeaf();
    const other = SessionManager.inMemory();
    expect(other.getEntry(other.branchWithSummary(null, "x"))).toMatchObject({ fromId: "root" });
  });
});

describe("7.9 createBranchedSession persistence", () => {
  it("29: 1.6.0 writes a branch with a user message at once, with one header and unique ids", () => {
    const sm = SessionManager.create(dir, dir);
    const u1 = sm.appendMessage(U("1"));
    sm.appendMessage(A("2"));
    sm.appendMessage(U("3"));
    sm.appendMessage(A("4"));
    const source = sm.getSessionFile() as string;
    const file = sm.createBranchedSession(u1) as string;
    expect(existsSync(file)).toBe(true);
    sm.appendCustomEntry("x", { a: 1 });
    sm.appendMessage(A("reply"));
    const written = lines(file);
    expect(written.filter((l) => l.type === "session")).toHaveLength(1);
    expect(written[0]?.parentSession).toBe(source);
    const ids = written.slice(1).map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(written).toHaveLength(4);
  });

  it("29b: a branch without conversation is not written until there is one", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendModelChange("p", "m");
    const u = sm.appendMessage(U("1"));
    const file = sm.createBranchedSession(sm.getEntries()[0]?.id as string) as string;
    expect(existsSync(file)).toBe(false);
    sm.appendCustomEntry("x");
    expect(existsSync(file)).toBe(false);
    sm.appendMessage(U("now"));
    expect(lines(file).map((l) => l.type)).toEqual(["session", "model_change", "custom", "message"]);
    expect(u).toBeTypeOf("string");
  });
});

describe("7.10 migration", () => {
  const v1 = [
    { type: "session", id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
    { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: U("hi") },
    { type: "message", timestamp: "2025-01-01T00:00:02.000Z", message: A("yo") },
  ];

  it("30: v1 gets ids and a parent chain, version 3; v2 ids are left alone", () => {
    const path = join(dir, "v1.jsonl");
    writeFileSync(path, `${v1.map((x) => JSON.stringify(x)).join("\n")}\n`);
    const sm = SessionManager.open(path);
    const [a, b] = sm.getEntries();
    expect(sm.getHeader()?.version).toBe(3);
    expect(a?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(a?.parentId).toBeNull();
    expect(b?.parentId).toBe(a?.id);
    const v2 = [
      { type: "session", version: 2, id: "s2", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
      { type: "message", id: "abc12345", parentId: null, timestamp: "t", message: U("hi") },
      { type: "message", id: "def67890", parentId: "abc12345", timestamp: "t", message: A("yo") },
    ];
    const p2 = join(dir, "v2.jsonl");
    writeFileSync(p2, `${v2.map((x) => JSON.stringify(x)).join("\n")}\n`);
    expect(
      SessionManager.open(p2)
        .getEntries()
        .map((x) => x.id),
    ).toEqual(["abc12345", "def67890"]);
  });

  it("31: v1 compaction index is header-inclusive; index 0 keeps nothing", () => {
    const mk = (index: number) => [
      v1[0],
      v1[1],
      v1[2],
      {
        type: "compaction",
        timestamp: "2025-01-01T00:00:03.000Z",
        summary: "S",
        firstKeptEntryIndex: index,
        tokensBefore: 5,
      },
      { type: "message", timestamp: "2025-01-01T00:00:04.000Z", message: U("after") },
    ];
    const sm = SessionManager.inMemory("/p", undefined, structuredClone(mk(2)) as never);
    const [, a, c] = sm.getEntries();
    expect((c as { firstKeptEntryId?: string }).firstKeptEntryId).toBe(a?.id);
    expect(c).not.toHaveProperty("firstKeptEntryIndex");
    const none = SessionManager.inMemory("/p", undefined, structuredClone(mk(0)) as never);
    expect(roles(none.buildSessionContext().messages)).toEqual(["compactionSummary", "user"]);
  });

  it("32: hookMessage becomes custom; the file is rewritten only at the first append, with a backup", () => {
    const v2 = [
      { type: "session", version: 2, id: "s2", timestamp: "2025-01-01T00:00:00.000Z", cwd: dir },
      { type: "message", id: "abc12345", parentId: null, timestamp: "t", message: U("hi") },
      {
        type: "message",
        id: "def67890",
        parentId: "abc12345",
        timestamp: "t",
        message: { role: "hookMessage", customType: "h", content: "c", display: true, timestamp: 1 },
      },
    ];
    const path = join(dir, "v2.jsonl");
    const original = `${JSON.stringify(v2[0])}\n${JSON.stringify(v2[1])}\nnot json at all\n${JSON.stringify(v2[2])}\n`;
    writeFileSync(path, original);
    const sm = SessionManager.open(path);
    expect((sm.getEntry("def67890") as { message: { role: string } }).message.role).toBe("custom");
    expect(readFileSync(path, "utf8")).toBe(original);
    sm.appendMessage(A("new"));
    const after = readFileSync(path, "utf8").split("\n");
    expect(JSON.parse(after[0] as string).version).toBe(3);
    expect(after[2]).toBe("not json at all");
    expect(JSON.parse(after[3] as string).message.role).toBe("custom");
    const backups = readdirSync(dir).filter((f) => f.endsWith(".bak"));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0] as string), "utf8")).toBe(original);
  });

  it("33: forkFrom migrates a v1 source and leaves it untouched", () => {
    const path = join(dir, "v1.jsonl");
    const bytes = `${v1.map((x) => JSON.stringify(x)).join("\n")}\n`;
    writeFileSync(path, bytes);
    const target = join(dir, "target");
    const fork = SessionManager.forkFrom(path, "/elsewhere", target);
    expect(readFileSync(path, "utf8")).toBe(bytes);
    const written = lines(fork.getSessionFile() as string);
    expect(written[0]).toMatchObject({ type: "session", version: 3, parentSession: path, cwd: "/elsewhere" });
    expect(written[1]?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(written[2]?.parentId).toBe(written[1]?.id);
    expect(texts(fork.buildSessionContext().messages)).toEqual(["hi", "yo"]);
  });

  it("33b: the real v1 fixtures open, migrate in memory and are not written", () => {
    for (const name of ["before-compaction", "large-session"] as const) {
      const path = upstreamFixture(name);
      const before = readFileSync(path);
      const sm = SessionManager.openReadonly(path);
      expect(sm.getHeader()?.version).toBe(3);
      expect(sm.buildSessionContext().messages.length).toBeGreaterThan(0);
      expect(readFileSync(path).equals(before)).toBe(true);
    }
  });
});

describe("7.11 loading and repair", () => {
  it("34: loadEntriesFromFile edge cases", () => {
    const p = (name: string, content?: string) => {
      const path = join(dir, name);
      if (content !== undefined) writeFileSync(path, content);
      return path;
    };
    expect(loadEntriesFromFile(p("missing.jsonl"))).toEqual([]);
    expect(loadEntriesFromFile(p("empty.jsonl", ""))).toEqual([]);
    expect(loadEntriesFromFile(p("noheader.jsonl", '{"type":"message","id":"1"}\n'))).toEqual([]);
    expect(loadEntriesFromFile(p("bad.jsonl", "not json\n"))).toEqual([]);
    const header = '{"type":"session","id":"s","timestamp":"t","cwd":"/"}';
    const mixed = p(
      "mixed.jsonl",
      `${header}\nnot valid json\n{"type":"message","id":"1","parentId":null}\n`,
    );
    expect(loadEntriesFromFile(mixed)).toHaveLength(2);
  });

  it("35: an empty file gets a header (same id on reopen); an invalid one throws and stays", () => {
    const empty = join(dir, "empty.jsonl");
    writeFileSync(empty, "");
    const sm = SessionManager.open(empty);
    expect(lines(empty)).toHaveLength(1);
    expect(SessionManager.open(empty).getSessionId()).toBe(sm.getSessionId());
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"type":"message","id":"1"}\n');
    expect(() => SessionManager.open(bad)).toThrow(`Session file is not a valid pi session: ${bad}`);
    expect(readFileSync(bad, "utf8")).toBe('{"type":"message","id":"1"}\n');
  });

  it("36: findMostRecentSession skips other files and invalid headers, newest by mtime, per cwd", () => {
    const header = (id: string, cwd: string) =>
      `${JSON.stringify({ type: "session", id, timestamp: "t", cwd })}\n`;
    writeFileSync(join(dir, "a.jsonl"), header("a", "/x"));
    writeFileSync(join(dir, "b.jsonl"), header("b", "/y"));
    writeFileSync(join(dir, "c.jsonl"), "garbage\n");
    writeFileSync(join(dir, "d.txt"), header("d", "/x"));
    utimesSync(join(dir, "a.jsonl"), 1000, 1000);
    utimesSync(join(dir, "b.jsonl"), 2000, 2000);
    utimesSync(join(dir, "c.jsonl"), 3000, 3000);
    utimesSync(join(dir, "d.txt"), 4000, 4000);
    expect(findMostRecentSession(dir)).toBe(join(dir, "b.jsonl"));
    expect(findMostRecentSession(dir, "/x")).toBe(join(dir, "a.jsonl"));
  });

  it("37: a torn last line is not touched on open; the next append moves it to a .torn-* sidecar", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hi"));
    const path = sm.getSessionFile() as string;
    sm.close();
    appendFileSync(path, '{"type":"message","id":"torn"');
    const before = readFileSync(path, "utf8");
    const reopened = SessionManager.open(path);
    expect(readFileSync(path, "utf8")).toBe(before);
    reopened.appendMessage(A("next"));
    // Every line is JSON again (pi keeps the fragment as a malformed line of its own).
    const text = readFileSync(path, "utf8").split("\n");
    expect(text.pop()).toBe("");
    expect(text.map((l) => JSON.parse(l).type)).toEqual(["session", "message", "message"]);
    expect(JSON.parse(text[2] as string).message.role).toBe("assistant");
    const sidecars = readdirSync(dir).filter((f) => f.includes(".torn-"));
    expect(sidecars).toHaveLength(1);
    expect(readFileSync(join(dir, sidecars[0] as string), "utf8")).toBe('{"type":"message","id":"torn"');
    expect(SessionManager.open(path).getEntries()).toHaveLength(2);
  });

  it("37b: an unknown content block round-trips unchanged", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("q"));
    const message = {
      ...A("x"),
      content: [{ type: "finalAnswer", text: "42", extra: { a: [1] } }],
    } as unknown as AgentMessage;
    sm.appendMessage(message);
    const reopened = SessionManager.open(sm.getSessionFile() as string);
    expect(reopened.buildSessionContext().messages[1]).toEqual(message);
  });
});

describe("7.12 listing", () => {
  it("38: modified is the last user/assistant message time, not the mtime", async () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hello there", 1_700_000_000_000));
    sm.appendMessage(A("hi"));
    sm.appendSessionInfo("  My session  ");
    const [info] = await SessionManager.list(dir, dir);
    expect(info?.modified.getTime()).toBe(1_700_000_000_000);
    expect(info?.name).toBe("My session");
    expect(info?.firstMessage).toBe("hello there");
    expect(info?.messageCount).toBe(2);
  });

  it("39: a flat custom dir filters by cwd; listAll returns both; continueRecent opens A", async () => {
    const a = SessionManager.create("/project-a", dir);
    a.appendMessage(U("from a"));
    const b = SessionManager.create("/project-b", dir);
    b.appendMessage(U("from b"));
    expect((await SessionManager.list("/project-a", dir)).map((s) => s.id)).toEqual([a.getSessionId()]);
    expect((await SessionManager.listAll(dir)).map((s) => s.id).sort()).toEqual(
      [a.getSessionId(), b.getSessionId()].sort(),
    );
    expect(SessionManager.continueRecent("/project-a", dir).getSessionId()).toBe(a.getSessionId());
    expect(SessionManager.findById("/project-b", b.getSessionId(), dir)).toBe(b.getSessionFile());
    expect(SessionManager.findById("/project-a", b.getSessionId(), dir)).toBeUndefined();
  });
});

describe("7.13 inMemory with preloaded entries", () => {
  it("40-44: adopted verbatim, leaf last, fresh ids, branches and labels rebuilt, id from options", () => {
    const source = SessionManager.inMemory("/p");
    const u1 = source.appendMessage(U("1"));
    const a1 = source.appendMessage(A("2"));
    source.branch(u1);
    const a2 = source.appendMessage(A("2b"));
    source.appendLabelChange(u1, "start");
    source.appendCompaction("sum", u1, 10);
    const loaded = source.getEntries();
    const sm = SessionManager.inMemory("/p", { id: "given-id" }, loaded);
    expect(sm.getEntries()).toEqual(loaded);
    expect(sm.getLeafId()).toBe(loaded[loaded.length - 1]?.id);
    expect(sm.getSessionId()).toBe("given-id");
    const fresh = sm.appendMessage(U("3"));
    expect(loaded.some((e) => e.id === fresh)).toBe(false);
    expect(sm.getEntry(fresh)?.parentId).toBe(loaded[loaded.length - 1]?.id);
    expect(sm.getTree()).toHaveLength(1);
    expect(
      sm
        .getChildren(u1)
        .map((e) => e.id)
        .sort(),
    ).toEqual([a1, a2].sort());
    expect(sm.getLabel(u1)).toBe("start");
    expect(texts(sm.buildSessionContext().messages)).toEqual(["sum", "1", "2b", "3"]);
    expect(SessionManager.inMemory("/p", undefined, loaded).getSessionId()).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe("pi 1.6.0 details found by the conformance suite", () => {
  it("getChildren with a duplicated id lists ids in the order they were first seen", () => {
    const t = "2025-01-01T00:00:00.000Z";
    const custom = (id: string, parentId: string | null) =>
      ({ type: "custom", id, parentId, timestamp: t, customType: "a" }) as SessionEntry;
    const header = { type: "session" as const, version: 3, id: "s", timestamp: t, cwd: "/p" };
    const sm = SessionManager.inMemory("/p", undefined, [
      header,
      custom("x", null),
      custom("p", null),
      custom("c", "p"),
      custom("x", "p"),
    ]);
    expect(sm.getChildren("p").map((e) => e.id)).toEqual(["x", "c"]);
    expect(sm.getChildren("p")[0]).toBe(sm.getEntry("x"));
    // Appends after the first call keep the order current.
    const d = sm.appendCustomEntry("a");
    sm.branch("p");
    const e = sm.appendCustomEntry("a");
    expect(sm.getChildren("p").map((x) => x.id)).toEqual(["x", "c", e]);
    expect(sm.getChildren("x").map((x) => x.id)).toEqual([d]);
  });

  it("migrateSessionEntries without a header migrates the entries as v1, as pi does", () => {
    const entries = [
      { type: "message", id: "aaaaaaaa", parentId: null, timestamp: "t", message: U("hi") },
      { type: "message", id: "bbbbbbbb", parentId: null, timestamp: "t", message: A("yo") },
    ] as SessionEntry[];
    migrateSessionEntries(entries);
    expect(entries[0]?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(entries[0]?.id).not.toBe("aaaaaaaa");
    expect(entries[0]?.parentId).toBeNull();
    expect(entries[1]?.parentId).toBe(entries[0]?.id);
  });
});

describe("API details of 1.6.0", () => {
  it("file is created at the first user or assistant message, with everything buffered", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendModelChange("p", "m");
    sm.appendThinkingLevelChange("high");
    const path = sm.getSessionFile() as string;
    expect(existsSync(path)).toBe(false);
    sm.appendMessage(U("go"));
    expect(lines(path).map((l) => l.type)).toEqual([
      "session",
      "model_change",
      "thinking_level_change",
      "message",
    ]);
    expect(sm.isPersisted()).toBe(true);
    expect(sm.getSessionId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(sm.getEntryCount()).toBe(3);
  });

  it("appendCompaction(null) keeps nothing before it", () => {
    const sm = SessionManager.inMemory();
    sm.appendMessage(U("a"));
    sm.appendMessage(A("b"));
    const c = sm.appendCompaction("S", null, 3);
    sm.appendMessage(U("c"));
    expect((sm.getEntry(c) as { firstKeptEntryId: string }).firstKeptEntryId).toBe(c);
    expect(texts(sm.buildSessionContext().messages)).toEqual(["S", "c"]);
  });

  it("appendContextEdit checks its target with pi's messages and edits the branch only", () => {
    const sm = SessionManager.inMemory();
    const u = sm.appendMessage(U("secret"));
    const a = sm.appendMessage(A("answer"));
    const model = sm.appendModelChange("p", "m");
    expect(() => sm.appendContextEdit(u, { bad: 1 } as never)).toThrow(
      "Context edit replacement must be null or contain string/array content",
    );
    expect(() => sm.appendContextEdit("zzz", null)).toThrow("Entry zzz not found");
    expect(() => sm.appendContextEdit(model, null)).toThrow(
      `Entry ${model} does not contribute editable model content`,
    );
    const edit = sm.appendContextEdit(a, { content: "edited" });
    expect(sm.getEntry(edit)).toMatchObject({ replacement: { content: [{ type: "text", text: "edited" }] } });
    sm.appendContextEdit(u, null);
    expect(texts(sm.buildSessionContext().messages)).toEqual(["edited"]);
    sm.branch(a);
    expect(texts(sm.buildSessionContext().messages)).toEqual(["secret", "answer"]);
    sm.branch(u);
    const other = sm.appendMessage(A("other"));
    expect(() => sm.appendContextEdit(a, null)).toThrow(`Entry ${a} is not on the active branch`);
    expect(other).toBeTypeOf("string");
  });

  it("appendUsage returns the entry; appendSessionInfo cleans the name; an empty one clears it", () => {
    const sm = SessionManager.inMemory();
    const usage = sm.appendUsage("compaction", "p", "m", zeroUsage);
    expect(usage).toMatchObject({ type: "usage", kind: "compaction", provider: "p", model: "m" });
    expect(usage).not.toHaveProperty("note");
    sm.appendSessionInfo("a\nb ");
    expect(sm.getSessionName()).toBe("a b");
    sm.appendSessionInfo("  ");
    expect(sm.getSessionName()).toBeUndefined();
  });

  it("assertValidSessionId rejects path-like ids with pi's message", () => {
    expect(() => SessionManager.create(dir, dir, { id: "../x" })).toThrow("Session id must be non-empty");
    expect(SessionManager.create(dir, dir, { id: "my.id-1" }).getSessionId()).toBe("my.id-1");
  });

  it("newSession starts over in the same directory", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("x"));
    const file = sm.newSession({ parentSession: "/prev.jsonl" });
    expect(file?.startsWith(dir)).toBe(true);
    expect(sm.getEntries()).toEqual([]);
    expect(sm.getHeader()?.parentSession).toBe("/prev.jsonl");
    expect(sm.usesDefaultSessionDir()).toBe(false);
  });
});

describe("safer than upstream", () => {
  it("cycles and duplicate ids never hang", () => {
    const e = (id: string, parentId: string | null) =>
      ({
        type: "message",
        id,
        parentId,
        timestamp: "2025-01-01T00:00:00.000Z",
        message: U(id),
      }) as SessionEntry;
    const sm = SessionManager.inMemory("/p", undefined, [e("a", "b"), e("b", "a"), e("c", "c"), e("a", "c")]);
    expect(sm.getBranch().length).toBeGreaterThan(0);
    expect(sm.buildSessionContext().messages.length).toBeGreaterThan(0);
    const count = (nodes: ReturnType<typeof sm.getTree>): number =>
      nodes.reduce((n, node) => n + 1 + count(node.children), 0);
    expect(count(sm.getTree())).toBe(4);
    const edit = sm.appendMessage(U("after"));
    expect(sm.getEntry(edit)).toBeDefined();
  });

  it("a read-only view never writes, not even a header into an empty file", () => {
    const empty = join(dir, "empty.jsonl");
    writeFileSync(empty, "");
    const view = openReadonly(empty);
    expect(readFileSync(empty, "utf8")).toBe("");
    expect(view.getEntries()).toEqual([]);
    const sm = SessionManager.openReadonly(empty);
    expect(() => sm.appendMessage(U("x"))).toThrow(`Session is read-only: ${empty}`);
    expect(readFileSync(empty, "utf8")).toBe("");
  });

  it("entries appended by another process are absorbed before our append", () => {
    const first = SessionManager.create(dir, dir);
    const u = first.appendMessage(U("hi"));
    const path = first.getSessionFile() as string;
    const second = SessionManager.open(path);
    const seen: string[] = [];
    first.onForeignEntries((entries) => seen.push(...entries.map((x) => x.id)));
    const foreign = second.appendMessage(A("from second"));
    second.appendLabelChange(u, "theirs");
    first.appendMessage(U("from first"));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(foreign);
    expect(first.getEntry(foreign)).toBeDefined();
    expect(first.getLabel(u)).toBe("theirs");
    const all = lines(path);
    expect(all.filter((l) => l.type === "session")).toHaveLength(1);
    expect(new Set(all.slice(1).map((l) => l.id)).size).toBe(4);
    // The last appender keeps its lock lease briefly; close() gives it up at once.
    first.close();
    second.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("a file deleted under us is written back whole, header first", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hi"));
    const path = sm.getSessionFile() as string;
    rmSync(path);
    sm.appendMessage(A("again"));
    expect(lines(path).map((l) => l.type)).toEqual(["session", "message", "message"]);
  });

  it("a file deleted within a held lock lease is written back whole with every entry (decision 132)", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hi"));
    sm.appendMessage(A("opens the writer"));
    const path = sm.getSessionFile() as string;
    rmSync(path);
    // Within the lease the appends cannot see the deletion at once; within 101 appends they do.
    for (let i = 0; i < 120; i++) sm.appendMessage(U(`m${i}`));
    expect(lines(path).map((l) => l.type)).toEqual(["session", ...Array(122).fill("message")]);
    expect(
      lines(path)
        .slice(1)
        .map((l) => l.id),
    ).toEqual(sm.getEntries().map((e) => e.id));

    // And when the lease is given up (close here) before the stat comes round.
    sm.appendMessage(U("one more"));
    rmSync(path);
    sm.appendMessage(U("into the deleted file"));
    sm.close();
    sm.appendMessage(U("after the lease"));
    expect(
      lines(path)
        .slice(1)
        .map((l) => l.id),
    ).toEqual(sm.getEntries().map((e) => e.id));
    expect(lines(path)[0]?.type).toBe("session");
  });

  it("a read-only view of a legacy file with a torn tail never writes, whatever is called", () => {
    const path = join(dir, "legacy.jsonl");
    const bytes = `${JSON.stringify({ type: "session", id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: dir })}\n${JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: U("hi") })}\n{"type":"mess`;
    writeFileSync(path, bytes);
    const view = SessionManager.openReadonly(path);
    const id = view.getEntries()[0]?.id as string;
    expect(view.getHeader()?.version).toBe(3);
    const attempts: (() => unknown)[] = [
      () => view.appendMessage(A("x")),
      () => view.appendLabelChange(id, "l"),
      () => view.appendCompaction("s", null, 1),
      () => view.appendSessionInfo("n"),
      () => view.branchWithSummary(id, "s"),
      () => view.createBranchedSession(id),
      () => view.newSession(),
    ];
    for (const attempt of attempts) expect(attempt).toThrow(`Session is read-only: ${path}`);
    view.branch(id);
    view.resetLeaf();
    expect(readFileSync(path, "utf8")).toBe(bytes);
    expect(readdirSync(dir)).toEqual(["legacy.jsonl"]);
  });

  it("lines another process appended to a legacy file before our first append are kept in the rewrite", () => {
    const path = join(dir, "v2.jsonl");
    const header = { type: "session", version: 2, id: "s2", timestamp: "2025-01-01T00:00:00.000Z", cwd: dir };
    const first = { type: "message", id: "aaaaaaaa", parentId: null, timestamp: "t", message: U("hi") };
    writeFileSync(path, `${JSON.stringify(header)}\n${JSON.stringify(first)}\n`);
    const sm = SessionManager.open(path);
    const seen: string[] = [];
    sm.onForeignEntries((entries) => seen.push(...entries.map((e) => e.id)));
    const foreign = {
      type: "message",
      id: "bbbbbbbb",
      parentId: "aaaaaaaa",
      timestamp: "t",
      message: A("theirs"),
    };
    appendFileSync(path, `${JSON.stringify(foreign)}\n`);
    const ours = sm.appendMessage(U("ours"));
    expect(seen).toEqual(["bbbbbbbb"]);
    const written = lines(path);
    expect(written.map((l) => l.id)).toEqual(["s2", "aaaaaaaa", "bbbbbbbb", ours]);
    expect(written[0]?.version).toBe(3);
    expect(written[3]?.parentId).toBe("aaaaaaaa");
    expect(SessionManager.open(path).getEntries()).toHaveLength(3);
  });

  it("a file replaced under an open manager is refused; memory and the new file stay as they were", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hi"));
    const path = sm.getSessionFile() as string;
    const other = `${readFileSync(path, "utf8")}${JSON.stringify({ type: "custom", id: "cccccccc", parentId: null, timestamp: "t", customType: "x" })}\n`;
    writeFileSync(`${path}.new`, other);
    renameSync(`${path}.new`, path); // an atomic rewrite by another program: a new inode
    const before = sm.getEntries();
    expect(() => sm.appendMessage(A("again"))).toThrow(/replaced/);
    expect(sm.getEntries()).toEqual(before);
    expect(readFileSync(path, "utf8")).toBe(other);
  });

  it("a torn fragment another process left after our last write is kept aside, not lost", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hi"));
    const path = sm.getSessionFile() as string;
    appendFileSync(path, '{"type":"message","id":"torn"');
    sm.appendMessage(A("next"));
    expect(lines(path).map((l) => l.type)).toEqual(["session", "message", "message"]);
    const sidecars = readdirSync(dir).filter((f) => f.includes(".torn-"));
    expect(sidecars).toHaveLength(1);
    expect(readFileSync(join(dir, sidecars[0] as string), "utf8")).toBe('{"type":"message","id":"torn"');
  });

  it("a torn last line that was another process's append still being written is taken in whole", () => {
    const sm = SessionManager.create(dir, dir);
    const u = sm.appendMessage(U("hi"));
    const path = sm.getSessionFile() as string;
    sm.close();
    const theirs = JSON.stringify({
      type: "message",
      id: "eeeeeeee",
      parentId: u,
      timestamp: "2025-01-01T00:00:09.000Z",
      message: A("theirs"),
    });
    // We read while their one write is half done (a read is not atomic with a write) ...
    appendFileSync(path, theirs.slice(0, 40));
    const reopened = SessionManager.open(path);
    const seen: string[] = [];
    reopened.onForeignEntries((entries) => seen.push(...entries.map((e) => e.id)));
    // ... and it completes before our append.
    appendFileSync(path, `${theirs.slice(40)}\n`);
    const ours = reopened.appendMessage(U("ours"));
    expect(seen).toEqual(["eeeeeeee"]);
    expect(reopened.getEntry("eeeeeeee")).toBeDefined();
    const written = lines(path);
    expect(written.map((l) => l.id)).toEqual([sm.getSessionId(), u, "eeeeeeee", ours]);
    expect(readFileSync(path, "utf8").split("\n")).toContain(theirs);
    expect(SessionManager.open(path).getEntries()).toHaveLength(3);
  });

  it("a complete last line without a newline is completed in place at the next append, as pi does", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("hi"));
    const path = sm.getSessionFile() as string;
    const extra = {
      type: "custom",
      id: "dddddddd",
      parentId: sm.getLeafId(),
      timestamp: "t",
      customType: "x",
    };
    appendFileSync(path, JSON.stringify(extra));
    const reopened = SessionManager.open(path);
    expect(reopened.getLeafId()).toBe("dddddddd");
    reopened.appendMessage(A("next"));
    expect(lines(path).map((l) => l.type)).toEqual(["session", "message", "custom", "message"]);
    expect(readdirSync(dir).filter((f) => f.includes(".torn-"))).toEqual([]);
  });

  it("listing sees appends made after an earlier listing (the metadata cache is never stale)", async () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("one"));
    expect((await SessionManager.list(dir, dir))[0]?.messageCount).toBe(1);
    sm.appendMessage(A("two"));
    sm.appendSessionInfo("named");
    const [info] = await SessionManager.list(dir, dir);
    expect(info?.messageCount).toBe(2);
    expect(info?.name).toBe("named");
  });

  it("a UTF-8 BOM before the header is ignored (pi rejects the file)", () => {
    const path = join(dir, "bom.jsonl");
    const header = {
      type: "session",
      version: 3,
      id: "bom",
      timestamp: "2025-01-01T00:00:00.000Z",
      cwd: dir,
    };
    const entry = { type: "message", id: "aaaaaaaa", parentId: null, timestamp: "t", message: U("hi") };
    writeFileSync(path, `\uFEFF${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`);
    expect(SessionManager.open(path).getSessionId()).toBe("bom");
    expect(loadEntriesFromFile(path)).toHaveLength(2);
  });

  it("a compaction with retainedTail (newer pi) is a self-contained checkpoint (vector 45)", () => {
    const t = "2025-01-01T00:00:00.000Z";
    const sm = SessionManager.inMemory("/p", undefined, [
      { type: "message", id: "old", parentId: null, timestamp: t, message: U("old") },
      {
        type: "compaction",
        id: "c",
        parentId: "old",
        timestamp: t,
        summary: "S",
        firstKeptEntryId: "old",
        tokensBefore: 1,
        retainedTail: [U("retained"), A("answer")],
      },
      { type: "message", id: "tail", parentId: "c", timestamp: t, message: U("tail") },
    ] as unknown as SessionEntry[]);
    expect(texts(sm.buildSessionContext().messages)).toEqual(["S", "retained", "answer", "tail"]);
  });

  it("fsync on request still appends one line", () => {
    const sm = SessionManager.create(dir, dir);
    sm.setWriteOptions({ fsync: true });
    sm.appendMessage(U("hi"));
    sm.appendMessage(A("ok"));
    expect(lines(sm.getSessionFile() as string)).toHaveLength(3);
  });
});
