/**
 * Tests of the listing cache as a whole: with unusual sessions (ids and times that are not
 * strings, local times, lone surrogates, NULs, files that are not sessions) a cold, a warm and
 * an uncached listing give the same infos in the same order; a change of time zone, an old,
 * foreign or damaged cache, files added, removed or renamed, and another candidate order
 * change nothing either.
 */
import { createHash } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SegmentWriter, readCachedText } from "./cache-segments.js";
import { cacheFileFor, segmentFileFor } from "./cache-dir.js";
import { readIndexFile } from "./cache.js";
import type { SessionInfo } from "./info.js";
import { listAllSessions, listSessionDir } from "./list.js";
import { newListStats } from "./options.js";

const dirs = tempDirs("ns-cache-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

const jsonl = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join("");
const header = (extra: Record<string, unknown>) => ({ type: "session", version: 3, cwd: "/p", ...extra });
let k = 0;
const message = (role: string, content: unknown, timestamp?: number) => ({
  type: "message",
  id: `m${k++}`,
  parentId: null,
  timestamp: "2025-01-02T00:00:00.000Z",
  message: timestamp === undefined ? { role, content } : { role, content, timestamp },
});
const named = (name: unknown) => ({
  type: "session_info",
  id: `n${k++}`,
  parentId: null,
  timestamp: "t",
  name,
});

/** Sessions whose infos take every path of the cache's encoding. */
const UNUSUAL: Record<string, string> = {
  "plain.jsonl": jsonl(
    header({ id: "plain", timestamp: "2025-01-01T00:00:00.000Z", parentSession: "/s/parent.jsonl" }),
    named("  a name  "),
    message("user", "hello", 1_736_000_000_000),
    message("assistant", [{ type: "text", text: "hi" }], 1_736_000_000_500),
  ),
  "number-id.jsonl": jsonl(header({ id: 42, timestamp: "2025-01-01T00:00:00.000Z" }), message("user", "x")),
  "object-id.jsonl": jsonl(header({ id: { a: [1, -0.5] }, timestamp: "2025-01-01T00:00:00.000Z" })),
  "null-id.jsonl": jsonl(header({ id: null, timestamp: "2025-01-01T00:00:00.000Z" })),
  "no-id.jsonl": jsonl(header({ timestamp: "2025-01-01T00:00:00.000Z" }), message("user", "y", 5)),
  "no-time.jsonl": jsonl(header({ id: "no-time" })),
  "number-time.jsonl": jsonl(header({ id: "number-time", timestamp: 1_700_000_000_000 })),
  "local-time.jsonl": jsonl(header({ id: "local-time", timestamp: "2025-03-01T10:00:00" })),
  "bad-day.jsonl": jsonl(header({ id: "bad-day", timestamp: "2025-02-31T10:00:00.000Z" })),
  "bad-time.jsonl": jsonl(header({ id: "bad-time", timestamp: "soon" }), message("user", "z")),
  "surrogates.jsonl": jsonl(
    header({ id: "s\ud800", cwd: "/p\udc00", timestamp: "2025-01-01T00:00:00.000Z" }),
    named("n\ud83d"),
    message("user", "lone \ud800 surrogate", 10),
    message("assistant", "and \udfff another", 11),
  ),
  "nul.jsonl": jsonl(
    header({ id: "nul", timestamp: "2025-01-01T00:00:00.000Z" }),
    message("user", "a\u0000b", 3),
    message("assistant", "\u0000", 4),
  ),
  "wide.jsonl": jsonl(
    header({ id: "wide", cwd: "/проект", timestamp: "2025-01-01T00:00:00.000Z" }),
    message("user", "日本語 😀", 7),
  ),
  "empty-text.jsonl": jsonl(
    header({ id: "empty-text", timestamp: "2025-01-01T00:00:00.000Z" }),
    message("user", ""),
    message("assistant", [{ type: "text", text: "" }]),
  ),
  "empty.jsonl": "",
  "blank.jsonl": "\n\n  \n",
  "not-a-session.jsonl": jsonl({ type: "message", id: "x" }),
  "garbage.jsonl": "not json at all\n",
  "torn.jsonl": `${jsonl(header({ id: "torn", timestamp: "2025-01-01T00:00:00.000Z" }))}{"type":"mess`,
};

function writeStore(root: string): string[] {
  const paths: string[] = [];
  for (const [i, [name, text]] of Object.entries(UNUSUAL).entries()) {
    const dir = join(root, `--d${i % 3}--`);
    mkdirSync(dir, { recursive: true });
    paths.push(join(dir, name));
    writeFileSync(join(dir, name), text);
  }
  return paths;
}

/** Infos as plain data (reads every lazy text), keys in order. */
function plain(infos: SessionInfo[]): unknown[] {
  return infos.map((i) => Object.entries({ ...i }));
}

describe("listing cache", () => {
  it("cold, warm and uncached listings agree on unusual sessions, in order", async () => {
    const root = tmp();
    const cacheDir = join(tmp(), "cache");
    writeStore(root);
    const uncached = plain(await listAllSessions(root, { cache: false }));
    const coldStats = newListStats();
    const cold = await listAllSessions(root, { cache: { dir: cacheDir }, stats: coldStats });
    const warmStats = newListStats();
    const warm = await listAllSessions(root, { cache: { dir: cacheDir }, stats: warmStats });
    expect(plain(cold)).toStrictEqual(uncached);
    expect(plain(warm)).toStrictEqual(uncached);
    expect(coldStats.filesCached).toBe(0);
    // Every file the cache can cover (all but the torn one, whose last line is not cached).
    expect(warmStats.filesCached).toBe(Object.keys(UNUSUAL).length - 1);
    expect(warmStats.filesParsed + warmStats.filesResumed).toBe(1);
    // Per directory, and with progress (another candidate order than the index's).
    const withProgress = plain(await listAllSessions(root, { cache: false, onProgress: () => {} }));
    const progressStats = newListStats();
    expect(
      plain(
        await listAllSessions(root, { cache: { dir: cacheDir }, onProgress: () => {}, stats: progressStats }),
      ),
    ).toStrictEqual(withProgress);
    expect(progressStats.filesCached).toBe(Object.keys(UNUSUAL).length - 1);
    for (const d of readdirSync(root)) {
      const dir = join(root, d);
      const fresh = plain(await listSessionDir(dir, { cache: false }));
      await listSessionDir(dir, { cache: { dir: cacheDir } });
      expect(plain(await listSessionDir(dir, { cache: { dir: cacheDir } }))).toStrictEqual(fresh);
    }
  });

  it("a time zone change does not leak through cached times", async () => {
    const saved = process.env.TZ;
    try {
      const root = tmp();
      const cacheDir = join(tmp(), "cache");
      writeStore(root);
      process.env.TZ = "UTC";
      const utc = await listAllSessions(root, { cache: { dir: cacheDir } });
      process.env.TZ = "America/New_York";
      const warm = plain(await listAllSessions(root, { cache: { dir: cacheDir } }));
      const uncached = plain(await listAllSessions(root, { cache: false }));
      expect(warm).toStrictEqual(uncached);
      // The local time really moved (so the comparison above means something).
      const local = (infos: SessionInfo[]) => infos.find((i) => i.id === "local-time")?.created.getTime();
      expect(local(await listAllSessions(root, { cache: false }))).not.toBe(local(utc));
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it("ignores and removes a cache of the JSON format (version 3)", async () => {
    const root = tmp();
    const cacheDir = join(tmp(), "cache");
    writeStore(root);
    mkdirSync(cacheDir, { recursive: true });
    const legacy = `list-${createHash("sha1").update(root).digest("hex").slice(0, 24)}`;
    writeFileSync(join(cacheDir, `${legacy}.json`), JSON.stringify({ version: 3, dir: root, files: {} }));
    writeFileSync(join(cacheDir, `${legacy}-0123456789abcdef.text`), "pi-session-text 0123456789abcdef\n");
    const uncached = plain(await listAllSessions(root, { cache: false }));
    expect(plain(await listAllSessions(root, { cache: { dir: cacheDir } }))).toStrictEqual(uncached);
    expect(readdirSync(cacheDir).filter((f) => f.startsWith(legacy))).toEqual([]);
  });

  it("a damaged, truncated or foreign index changes no result", async () => {
    const root = tmp();
    const other = tmp();
    const cacheDir = join(tmp(), "cache");
    writeStore(root);
    writeStore(other);
    const uncached = plain(await listAllSessions(root, { cache: false }));
    await listAllSessions(root, { cache: { dir: cacheDir } });
    await listAllSessions(other, { cache: { dir: cacheDir } });
    const index = cacheFileFor(cacheDir, root);
    const good = readFileSync(index);
    const damages: [string, (b: Buffer) => Buffer][] = [
      ["truncated", (b) => b.subarray(0, b.length - 7)],
      ["longer", (b) => Buffer.concat([b, Buffer.from("x")])],
      ["zeroed", (b) => Buffer.alloc(b.length)],
      ["magic", (b) => Buffer.concat([Buffer.from("X"), b.subarray(1)])],
      ["another directory's", () => readFileSync(cacheFileFor(cacheDir, other))],
    ];
    for (const [what, damage] of damages) {
      writeFileSync(index, damage(good));
      expect(plain(await listAllSessions(root, { cache: { dir: cacheDir } })), what).toStrictEqual(uncached);
    }
    expect(await readIndexFile(join(tmp(), "none"), root)).toBeUndefined();
  });

  it("notices files added, removed, renamed and rewritten", async () => {
    const root = tmp();
    const cacheDir = join(tmp(), "cache");
    const paths = writeStore(root);
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const [a, b, c, d] = paths as [string, string, string, string];
    unlinkSync(a);
    renameSync(b, `${b}.renamed.jsonl`);
    writeFileSync(
      join(root, "--d0--", "new.jsonl"),
      jsonl(header({ id: "new", timestamp: "2025-05-05T00:00:00.000Z" })),
    );
    appendFileSync(c, jsonl(message("user", "appended", 1_800_000_000_000)));
    writeFileSync(d, jsonl(header({ id: "rewritten", timestamp: "2025-06-06T00:00:00.000Z" })));
    const uncached = plain(await listAllSessions(root, { cache: false }));
    expect(plain(await listAllSessions(root, { cache: { dir: cacheDir } }))).toStrictEqual(uncached);
    const stats = newListStats();
    expect(plain(await listAllSessions(root, { cache: { dir: cacheDir }, stats }))).toStrictEqual(uncached);
    expect(stats.filesParsed + stats.filesResumed).toBe(1); // the torn file only
    rmSync(cacheDir, { recursive: true, force: true });
    expect(plain(await listAllSessions(root, { cache: { dir: cacheDir } }))).toStrictEqual(uncached);
    truncateSync(c, 10);
    expect(plain(await listAllSessions(root, { cache: { dir: cacheDir } }))).toStrictEqual(
      plain(await listAllSessions(root, { cache: false })),
    );
  });
});

describe("SegmentWriter (texts written while a listing reads)", () => {
  it("appends texts that read back exactly, lone surrogates included, and discards its file", () => {
    const cacheDir = tmp();
    const listed = tmp();
    const w = new SegmentWriter(cacheDir, listed);
    // Buffered writes: many texts across several 1 MiB flushes, and one larger than the buffer.
    const many = Array.from({ length: 400 }, (_, i) => `${i} ${"é".repeat(i % 7)}${"t".repeat(5000 + i)}`);
    const texts = [
      "hello",
      "é 中文 😀",
      "lone \ud800 surrogate",
      "x".repeat(100_000),
      ...many.slice(0, 200),
      "y".repeat(1_500_000),
      ...many.slice(200),
      "lone \udfff again",
    ];
    const refs = texts.map((t) => w.add(t));
    w.close();
    refs.forEach((ref, i) => {
      expect(ref).toBeDefined();
      expect(readCachedText(cacheDir, listed, ref as NonNullable<typeof ref>)).toBe(texts[i]);
    });
    const file = segmentFileFor(cacheDir, listed, (refs[0] as NonNullable<(typeof refs)[0]>).segment);
    expect(readdirSync(cacheDir)).toContain(file.slice(cacheDir.length + 1));
    w.discard();
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it("turns itself off when it cannot write (the listing still succeeds, texts go with the save)", async () => {
    const root = tmp();
    const blocked = join(tmp(), "not-a-dir");
    writeFileSync(blocked, "a file where the cache dir should be");
    const w = new SegmentWriter(blocked, root);
    expect(w.add("text")).toBeUndefined();
    expect(w.add("more")).toBeUndefined();
    w.discard();
    writeFileSync(join(root, "s.jsonl"), jsonl(header({ id: "s", timestamp: "2025-01-01T00:00:00.000Z" })));
    const list = await listAllSessions(root, { cache: { dir: blocked } });
    expect(list.map((i) => i.id)).toEqual(["s"]);
  });

  it("a cold listing leaves one referenced segment and a warm one reads the same texts back", async () => {
    const root = tmp();
    const cacheDir = tmp();
    for (let i = 0; i < 5; i++) {
      writeFileSync(
        join(root, `s${i}.jsonl`),
        jsonl(
          header({ id: `s${i}`, timestamp: "2025-01-01T00:00:00.000Z" }),
          message("user", `question ${i}`, 1000 + i),
          message("assistant", [{ type: "text", text: `answer ${i}` }], 2000 + i),
        ),
      );
    }
    const cold = await listAllSessions(root, { cache: { dir: cacheDir } });
    const segments = readdirSync(cacheDir).filter((n) => n.endsWith(".text"));
    expect(segments).toHaveLength(1);
    const warm = await listAllSessions(root, { cache: { dir: cacheDir } });
    expect(warm.map((i) => i.allMessagesText)).toEqual(cold.map((i) => i.allMessagesText));
    expect(cold.map((i) => i.allMessagesText)).toContain("question 0 answer 0");
  });
});
