/**
 * Tests of listing: pi's `SessionInfo` rules (vectors 38–39 and each field), cwd filtering,
 * order, progress and abort, and the metadata cache (cold = warm = no cache = a reference
 * implementation of pi's algorithm; grown files read incrementally; deleting or corrupting the
 * cache changes nothing).
 */
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { arbSessionV3, fcOptions, tempDirs, toJsonl, upstreamFixture } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { encodeCwd } from "../layout/sessions-root.js";
import { type ListStats, newListStats } from "./options.js";
import { listAllSessions, listSessionDir, listSessions, readSessionInfo } from "./list.js";
import type { SessionInfo } from "./info.js";

const dirs = tempDirs("ns-list-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

const line = (v: unknown) => `${JSON.stringify(v)}\n`;
const hdr = (id: string, cwd: string, timestamp = "2025-01-01T00:00:00.000Z", extra: object = {}) => ({
  type: "session",
  version: 3,
  id,
  timestamp,
  cwd,
  ...extra,
});
let n = 0;
const msg = (role: string, content: unknown, ts?: number, iso = "2025-01-01T00:00:05.000Z") => ({
  type: "message",
  id: `m${n++}`,
  parentId: null,
  timestamp: iso,
  message: ts === undefined ? { role, content } : { role, content, timestamp: ts },
});
const info = (name: unknown) => ({
  type: "session_info",
  id: `i${n++}`,
  parentId: null,
  timestamp: "t",
  name,
});

/** pi 1.6.0's `buildSessionInfo`, transcribed naively as an oracle (whole file, JSON.parse per line). */
function reference(path: string): SessionInfo | null {
  const st = statSync(path);
  let header: Record<string, unknown> | null = null;
  let messageCount = 0;
  let firstMessage = "";
  const all: string[] = [];
  let name: string | undefined;
  let last: number | undefined;
  for (const l of readFileSync(path, "utf8").split("\n")) {
    if (!l.trim()) continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(l);
    } catch {
      continue;
    }
    // pi: falsy values are skipped; the first truthy one must be the header (an array or a
    // number has no `type`); after it, a value that is not an object has no `type` either.
    if (!e) continue;
    if (!header) {
      if (e.type !== "session") return null;
      header = e;
      continue;
    }
    if (typeof e !== "object") continue;
    if (e.type === "session_info") name = typeof e.name === "string" ? e.name.trim() || undefined : undefined;
    if (e.type !== "message") continue;
    messageCount++;
    const m = e.message as Record<string, unknown>;
    if (typeof m?.role !== "string" || !("content" in m)) continue;
    if (m.role !== "user" && m.role !== "assistant") continue;
    const t = typeof m.timestamp === "number" ? m.timestamp : new Date(e.timestamp as string).getTime();
    if (!Number.isNaN(t)) last = Math.max(last ?? 0, t);
    const c = m.content;
    const text =
      typeof c === "string"
        ? c
        : Array.isArray(c)
          ? c
              .filter((b) => b?.type === "text")
              .map((b) => b.text)
              .join(" ")
          : "";
    if (!text) continue;
    all.push(text);
    if (!firstMessage && m.role === "user") firstMessage = text;
  }
  if (!header) return null;
  const ht = typeof header.timestamp === "string" ? new Date(header.timestamp).getTime() : Number.NaN;
  const out: SessionInfo = {
    path,
    id: header.id as string,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    name,
    parentSessionPath: typeof header.parentSession === "string" ? header.parentSession : undefined,
    created: new Date(header.timestamp as string),
    modified: last !== undefined && last > 0 ? new Date(last) : !Number.isNaN(ht) ? new Date(ht) : st.mtime,
    messageCount,
    firstMessage: firstMessage || "(no messages)",
    allMessagesText: all.join(" "),
  };
  return out;
}

function byPath(infos: SessionInfo[]): SessionInfo[] {
  return [...infos].sort((a, b) => a.path.localeCompare(b.path));
}

describe("SessionInfo rules", () => {
  it("vector 38: modified is the last user/assistant message time, not the file mtime", async () => {
    const dir = tmp();
    const p = join(dir, "a.jsonl");
    writeFileSync(
      p,
      line(hdr("a", "/p")) +
        line(msg("user", "hi", 1_700_000_000_000)) +
        line(msg("assistant", [], 1_700_000_100_000)) +
        line(msg("toolResult", [], 1_800_000_000_000)),
    );
    const [i] = await listSessionDir(dir, { cache: false });
    expect(i?.modified.getTime()).toBe(1_700_000_100_000);
  });

  it("fills every field as pi does", async () => {
    const dir = tmp();
    const p = join(dir, "a.jsonl");
    writeFileSync(
      p,
      line(hdr("a", "/p", "2025-02-02T00:00:00.000Z", { parentSession: "/old.jsonl" })) +
        line(info("first")) +
        line(msg("assistant", [{ type: "text", text: "before user" }], 5)) +
        line(
          msg(
            "user",
            [
              { type: "text", text: "one" },
              { type: "image", data: "", mimeType: "x" },
              { type: "text", text: "two" },
            ],
            6,
          ),
        ) +
        "garbage line\n" +
        line(msg("toolResult", [{ type: "text", text: "tool" }], 7)) +
        line(msg("user", "second", undefined, "2025-03-03T00:00:00.000Z")) +
        line(info("  final name  ")),
    );
    const i = await readSessionInfo(p);
    expect(i).toEqual({
      path: p,
      id: "a",
      cwd: "/p",
      name: "final name",
      parentSessionPath: "/old.jsonl",
      created: new Date("2025-02-02T00:00:00.000Z"),
      modified: new Date("2025-03-03T00:00:00.000Z"),
      messageCount: 4,
      firstMessage: "one two",
      allMessagesText: "before user one two second",
    });
    expect(i).toEqual(reference(p));
  });

  it("an empty name clears it; no messages gives the header time and '(no messages)'", async () => {
    const dir = tmp();
    const p = join(dir, "a.jsonl");
    writeFileSync(p, line(hdr("a", "/p", "2025-04-04T00:00:00.000Z")) + line(info("x")) + line(info("  ")));
    const i = await readSessionInfo(p);
    expect(i?.name).toBeUndefined();
    expect(i?.modified).toEqual(new Date("2025-04-04T00:00:00.000Z"));
    expect(i?.firstMessage).toBe("(no messages)");
    expect(i?.messageCount).toBe(0);
  });

  it("falls back to the file mtime when the header time is invalid; missing cwd is ''", async () => {
    const dir = tmp();
    const p = join(dir, "a.jsonl");
    writeFileSync(p, line({ type: "session", id: "a", timestamp: "not a date" }));
    const i = await readSessionInfo(p);
    expect(i?.modified).toEqual(statSync(p).mtime);
    expect(i?.cwd).toBe("");
  });

  it("skips files whose first JSON line is not a valid header, and non-.jsonl files", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "bad.jsonl"), line(msg("user", "x", 1)) + line(hdr("b", "/p")));
    writeFileSync(join(dir, "empty.jsonl"), "");
    writeFileSync(join(dir, "notes.txt"), line(hdr("t", "/p")));
    writeFileSync(join(dir, "ok.jsonl"), `garbage\n${line(hdr("ok", "/p"))}`);
    const list = await listSessionDir(dir, { cache: false });
    expect(list.map((i) => i.id)).toEqual(["ok"]);
  });

  it("skips a session whose header time no Date takes (pi's new Date throws), cold and warm, without failing", async () => {
    const dir = tmp();
    const odd = { ...hdr("odd", "/p"), timestamp: { toString: false } };
    writeFileSync(join(dir, "odd.jsonl"), line(odd) + line(msg("user", "x", 1)));
    writeFileSync(join(dir, "ok.jsonl"), line(hdr("ok", "/p")));
    const cacheDir = tmp();
    for (const cache of [false, { dir: cacheDir }, { dir: cacheDir }] as const) {
      expect((await listSessionDir(dir, { cache })).map((i) => i.id)).toEqual(["ok"]);
    }
    expect(await readSessionInfo(join(dir, "odd.jsonl"))).toBeNull();
  });

  it('lists a header without a string id as pi does (id as is, cwd "", invalid created, mtime), cold and warm', async () => {
    const dir = tmp();
    const cacheDir = join(tmp(), "cache");
    writeFileSync(join(dir, "noid.jsonl"), line({ type: "session" }));
    writeFileSync(join(dir, "numid.jsonl"), line({ type: "session", id: 5 }));
    const expected = [join(dir, "noid.jsonl"), join(dir, "numid.jsonl")].map((path) => reference(path));
    expect(expected.map((i) => i?.id)).toEqual([undefined, 5]);
    for (const cache of [false, { dir: cacheDir }, { dir: cacheDir }] as const) {
      const list = byPath(await listSessionDir(dir, { cache }));
      expect(list).toStrictEqual(expected);
      for (const info of list) {
        expect(info.cwd).toBe("");
        expect(Number.isNaN(info.created.getTime())).toBe(true);
        expect(info.modified).toEqual(statSync(info.path).mtime);
      }
    }
  });

  it("always sets the name and parentSessionPath keys (pi's shape), also from the cache", async () => {
    const dir = tmp();
    const cacheDir = join(tmp(), "cache");
    writeFileSync(join(dir, "plain.jsonl"), line(hdr("plain", "/p")));
    for (const cache of [false, { dir: cacheDir }, { dir: cacheDir }] as const) {
      const [info] = await listSessionDir(dir, { cache });
      expect(Object.keys(info as SessionInfo)).toEqual([
        "path",
        "id",
        "cwd",
        "name",
        "parentSessionPath",
        "created",
        "modified",
        "messageCount",
        "firstMessage",
        "allMessagesText",
      ]);
      expect(info?.name).toBeUndefined();
      expect(info?.parentSessionPath).toBeUndefined();
    }
  });

  it("lists the upstream fixtures exactly as the reference does", async () => {
    const dir = tmp();
    for (const name of ["before-compaction", "large-session"] as const) {
      copyFileSync(upstreamFixture(name), join(dir, `${name}.jsonl`));
    }
    const list = await listSessionDir(dir, { cache: false });
    expect(list).toHaveLength(2);
    for (const i of list) expect(i).toEqual(reference(i.path));
  });
});

describe("listSessions / listAllSessions", () => {
  it("vector 39: a flat custom sessionDir is filtered by header cwd; listAll shows both", async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, "2025-01-01T00-00-00-000Z_a.jsonl"),
      line(hdr("a", "/projects/a")) + line(msg("user", "A", 10)),
    );
    writeFileSync(
      join(dir, "2025-01-01T00-00-00-000Z_b.jsonl"),
      line(hdr("b", "/projects/b")) + line(msg("user", "B", 20)),
    );
    writeFileSync(join(dir, "2025-01-01T00-00-00-000Z_c.jsonl"), line(hdr("c", "")));
    const a = await listSessions("/projects/a", { sessionDir: dir, agentDir: tmp(), cache: false });
    expect(a.map((i) => i.id)).toEqual(["a"]);
    const all = await listAllSessions(dir, { cache: false });
    expect(all.map((i) => i.id).sort()).toEqual(["a", "b", "c"]);
  });

  it("uses the default per-cwd directory without a sessionDir, and does not filter it", async () => {
    const agentDir = tmp();
    const cwdDir = join(agentDir, "sessions", encodeCwd("/projects/a"));
    mkdirSync(cwdDir, { recursive: true });
    writeFileSync(join(cwdDir, "x.jsonl"), line(hdr("x", "/somewhere/else")));
    expect((await listSessions("/projects/a", { agentDir, cache: false })).map((i) => i.id)).toEqual(["x"]);
    // Passing that same directory as sessionDir is not "custom" either (pi compares paths).
    expect(
      (await listSessions("/projects/a", { agentDir, sessionDir: cwdDir, cache: false })).map((i) => i.id),
    ).toEqual(["x"]);
    expect(await listSessions("/projects/none", { agentDir, cache: false })).toEqual([]);
    const all = await listAllSessions(undefined, { agentDir, cache: false });
    expect(all.map((i) => i.id)).toEqual(["x"]);
  });

  it("reads an empty sessionDir or root as the default, and ~ and file:// paths as pi does", async () => {
    const agentDir = tmp();
    const cwdDir = join(agentDir, "sessions", encodeCwd("/projects/a"));
    mkdirSync(cwdDir, { recursive: true });
    writeFileSync(join(cwdDir, "x.jsonl"), line(hdr("x", "/somewhere/else")));
    const ids = (list: SessionInfo[]) => list.map((i) => i.id);
    // "" is pi's "no custom directory": the default one, not filtered (not the process cwd).
    expect(ids(await listSessions("/projects/a", { agentDir, sessionDir: "", cache: false }))).toEqual(["x"]);
    expect(ids(await listAllSessions("", { agentDir, cache: false }))).toEqual(["x"]);
    // A file:// URL and a path under ~ name the same directory.
    const url = pathToFileURL(cwdDir).href;
    expect(ids(await listSessions("/projects/a", { agentDir, sessionDir: url, cache: false }))).toEqual([
      "x",
    ]);
    expect(
      ids(await listAllSessions(pathToFileURL(join(agentDir, "sessions")).href, { cache: false })),
    ).toEqual(["x"]);
    const home = process.env.HOME;
    process.env.HOME = agentDir;
    try {
      expect(ids(await listAllSessions("~/sessions", { cache: false }))).toEqual(["x"]);
      // A custom directory (under ~) is filtered by header cwd.
      const custom = join(agentDir, "flat");
      mkdirSync(custom);
      writeFileSync(join(custom, "y.jsonl"), line(hdr("y", "/projects/a")));
      writeFileSync(join(custom, "z.jsonl"), line(hdr("z", "/projects/b")));
      expect(
        ids(await listSessions("/projects/a", { agentDir, sessionDir: "~/flat", cache: false })),
      ).toEqual(["y"]);
    } finally {
      if (home === undefined) delete process.env.HOME;
      else process.env.HOME = home;
    }
  });

  it("sorts by modified descending and reports progress up to the total", async () => {
    const dir = tmp();
    for (let k = 0; k < 25; k++) {
      writeFileSync(
        join(dir, `s${String(k).padStart(2, "0")}.jsonl`),
        line(hdr(`s${k}`, "/p")) + line(msg("user", "x", 1000 + ((k * 7) % 25))),
      );
    }
    const calls: [number, number, number | undefined][] = [];
    const list = await listSessionDir(dir, {
      cache: false,
      concurrency: 3,
      onProgress: (loaded, total, partial) => calls.push([loaded, total, partial?.length]),
    });
    expect(list.map((i) => i.modified.getTime())).toEqual(
      [...list.map((i) => i.modified.getTime())].sort((a, b) => b - a),
    );
    expect(calls.map((c) => c[0])).toEqual(Array.from({ length: 25 }, (_, k) => k + 1));
    expect(calls.every((c) => c[1] === 25)).toBe(true);
    expect(calls.filter((c) => c[2] !== undefined).map((c) => c[0])).toEqual([1, 10, 20, 25]);
  });

  it("stops on abort", async () => {
    const dir = tmp();
    for (let k = 0; k < 5; k++) writeFileSync(join(dir, `s${k}.jsonl`), line(hdr(`s${k}`, "/p")));
    const ac = new AbortController();
    ac.abort();
    await expect(listSessionDir(dir, { signal: ac.signal, cache: false })).rejects.toThrow();
    const ac2 = new AbortController();
    await expect(
      listAllSessions(dir, { signal: ac2.signal, cache: false, onProgress: () => ac2.abort() }),
    ).rejects.toThrow();
  });

  it("returns [] for a missing directory", async () => {
    expect(await listSessionDir(join(tmp(), "nope"), { cache: false })).toEqual([]);
    expect(await listAllSessions(join(tmp(), "nope"), { cache: false })).toEqual([]);
  });
});

describe("metadata cache", () => {
  function store(): { root: string; cacheDir: string; files: string[] } {
    const root = tmp();
    const files: string[] = [];
    for (let k = 0; k < 6; k++) {
      const d = join(root, `--proj${k % 2}--`);
      mkdirSync(d, { recursive: true });
      const p = join(d, `2025-01-0${k + 1}T00-00-00-000Z_s${k}.jsonl`);
      let text = line(hdr(`s${k}`, `/proj${k % 2}`)) + line(info(`name ${k}`));
      for (let j = 0; j < 50; j++)
        text += line(msg(j % 2 ? "assistant" : "user", `text ${k}-${j} ${"z".repeat(200)}`, 1000 * k + j));
      writeFileSync(p, text);
      files.push(p);
    }
    return { root, cacheDir: join(tmp(), "cache"), files };
  }

  it("cold, warm, uncached and reference results are equal; warm reads no session bytes", async () => {
    const { root, cacheDir, files } = store();
    const cold = newListStats();
    const a = await listAllSessions(root, { cache: { dir: cacheDir }, stats: cold });
    const warm = newListStats();
    const b = await listAllSessions(root, { cache: { dir: cacheDir }, stats: warm });
    const c = await listAllSessions(root, { cache: false });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(byPath(a)).toEqual(byPath(files.map(reference) as SessionInfo[]));
    expect(cold.filesParsed).toBe(6);
    expect(warm).toEqual({ bytesRead: 0, filesParsed: 0, filesResumed: 0, filesCached: 6 });
  });

  it("reads a grown file only from where the cache left off", async () => {
    const { root, cacheDir, files } = store();
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const grown = files[2] ?? "";
    const sizeBefore = statSync(grown).size;
    appendFileSync(grown, line(msg("user", "appended later", 99_999)) + line(info("renamed")));
    const stats: ListStats = newListStats();
    const list = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
    expect(stats.filesResumed).toBe(1);
    expect(stats.filesParsed).toBe(0);
    // New bytes plus two 4 KiB probes, never the whole file again.
    expect(stats.bytesRead).toBeLessThanOrEqual(statSync(grown).size - sizeBefore + 3 * 4096);
    expect(stats.bytesRead).toBeLessThan(sizeBefore);
    expect(byPath(list)).toEqual(byPath(files.map(reference) as SessionInfo[]));
    expect(list.find((i) => i.path === grown)).toMatchObject({ name: "renamed", modified: new Date(99_999) });
  });

  it("resumes files read in several chunks, whatever chunk the probed bytes fall in", async () => {
    // Files over one read chunk (1 MiB), whose last full line ends just after a chunk boundary
    // (the edge probe spans two chunks), well after it, or on it; then each grows.
    const MiB = 1024 * 1024;
    const root = tmp();
    const cacheDir = tmp();
    const paths: string[] = [];
    for (const [k, endAfter] of [
      [0, 50],
      [1, 200_000],
      [2, 0],
      [3, 1 * MiB + 3000],
    ] as const) {
      const path = join(root, `big${k}.jsonl`);
      let body = line(hdr(`big${k}`, "/proj"));
      const filler = (n: number) => line(msg("assistant", "f".repeat(Math.max(1, n - 140)), 1000 + n));
      while (body.length < MiB - 9000) body += filler(8000);
      // Pad so that the last full line ends `endAfter` bytes past the 1 MiB boundary.
      const rest = MiB + endAfter - body.length;
      body += rest > 300 ? filler(rest - 300) + filler(300) : filler(rest);
      body += `${line(msg("user", "last before the edge", 5000))}{"type":"message","torn":`;
      writeFileSync(path, body);
      paths.push(path);
    }
    await listAllSessions(root, { cache: { dir: cacheDir } });
    for (const path of paths) appendFileSync(path, `1}\n${line(msg("user", "grown", 9000))}`);
    const stats = newListStats();
    const list = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
    expect(stats.filesResumed).toBe(paths.length);
    expect(stats.filesParsed).toBe(0);
    expect(byPath(list)).toEqual(byPath(paths.map(reference) as SessionInfo[]));
  });

  it("re-reads a file that was rewritten or truncated, and handles a torn tail", async () => {
    const { root, cacheDir, files } = store();
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const [f0, f1, f2] = files as [string, string, string];
    // Same size and a prefix change (pi's in-place migration rewrite): probes catch it.
    const text = readFileSync(f0, "utf8").replace('"name 0"', '"NAME 0"');
    writeFileSync(f0, `${text}${line(msg("user", "more", 5))}`);
    writeFileSync(f1, line(hdr("s1", "/proj1")));
    appendFileSync(f2, JSON.stringify(msg("user", "torn but whole", 77_777)));
    const stats = newListStats();
    const list = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
    expect(stats.filesParsed).toBe(2);
    expect(byPath(list)).toEqual(byPath(files.map(reference) as SessionInfo[]));
    expect(list.find((i) => i.path === f2)?.modified).toEqual(new Date(77_777));
    // The torn tail is not cached as a full line: completing it later still counts once.
    appendFileSync(f2, "\n");
    const again = await listAllSessions(root, { cache: { dir: cacheDir } });
    expect(byPath(again)).toEqual(byPath(files.map(reference) as SessionInfo[]));
  });

  it("re-reads a file replaced by another of the same size and mtime (a new inode)", async () => {
    const { root, cacheDir, files } = store();
    const f3 = files[3] as string;
    // Whole seconds: times any filesystem keeps exactly.
    utimesSync(f3, 1_700_000_000, 1_700_000_000);
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const before = statSync(f3);
    // Same length, other bytes, renamed over the old file with its times: only the inode differs.
    const replacement = `${f3}.new`;
    writeFileSync(replacement, readFileSync(f3, "utf8").replace('"name 3"', '"NAME 3"'));
    utimesSync(replacement, 1_700_000_000, 1_700_000_000);
    renameSync(replacement, f3);
    const after = statSync(f3);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(after.ino).not.toBe(before.ino);
    const stats = newListStats();
    const list = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
    expect(stats.filesParsed).toBe(1);
    expect(list.find((i) => i.path === f3)?.name).toBe("NAME 3");
    expect(byPath(list)).toEqual(byPath(files.map(reference) as SessionInfo[]));
  });

  it("re-reads a file changed in place to the same size, also when its mtime is set back", async () => {
    const { root, cacheDir, files } = store();
    const f3 = files[3] as string;
    utimesSync(f3, 1_700_000_000, 1_700_000_000);
    await listAllSessions(root, { cache: { dir: cacheDir } });
    // The middle of the file, beyond both 4 KiB probes: pi rewrites in place (same inode).
    const edit = (from: string, to: string, mtime: number) => {
      const text = readFileSync(f3, "utf8");
      expect(text.length).toBeGreaterThan(3 * 4096);
      expect(text.indexOf(from)).toBeGreaterThan(4096);
      writeFileSync(f3, text.replace(from, to));
      utimesSync(f3, mtime, mtime);
    };
    const relist = async () => {
      const stats = newListStats();
      const list = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
      expect(byPath(list)).toEqual(byPath(files.map(reference) as SessionInfo[]));
      expect([stats.filesParsed, stats.filesResumed]).toEqual([1, 0]);
      return list.find((i) => i.path === f3)?.allMessagesText ?? "";
    };
    edit("text 3-25 ", "TEXT 3-25 ", 1_700_000_100);
    expect(await relist()).toContain("TEXT 3-25 ");
    // Same size, same mtime and inode as the cache entry: only the ctime tells.
    edit("text 3-27 ", "TEXT 3-27 ", 1_700_000_100);
    expect(await relist()).toContain("TEXT 3-27 ");
  });

  it("does not cache a message time read in the local time zone (a zone change is seen)", async () => {
    const root = tmp();
    const cacheDir = join(tmp(), "cache");
    const entryAt = (iso: unknown) => ({ ...msg("user", "hi"), timestamp: iso });
    const files = [
      // A string without a zone, and an array (read as its joined string): local time.
      line(hdr("z1", "/p")) + line(entryAt("2025-03-01 10:00:00")),
      line(hdr("z2", "/p")) + line(entryAt(["2025-03-01 11:00:00"])),
      // pi's own form: the same in every zone, cached as usual.
      line(hdr("z3", "/p")) + line(entryAt("2025-03-01T12:00:00.000Z")),
    ].map((text, k) => {
      const p = join(root, `2025-01-01T00-00-00-000Z_z${k + 1}.jsonl`);
      writeFileSync(p, text);
      return p;
    });
    const zone = process.env.TZ;
    try {
      process.env.TZ = "UTC";
      await listAllSessions(root, { cache: { dir: cacheDir } });
      process.env.TZ = "Asia/Tokyo";
      const stats = newListStats();
      const warm = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
      expect(byPath(warm)).toEqual(byPath(files.map(reference) as SessionInfo[]));
      expect(warm.find((i) => i.id === "z1")?.modified).toEqual(new Date("2025-03-01T01:00:00.000Z"));
      expect([stats.filesParsed, stats.filesCached]).toEqual([2, 1]);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it.skipIf(process.platform === "win32" || process.getuid?.() === 0)(
    "skips a file made unreadable after it was cached, as a cold listing does",
    async () => {
      const { root, cacheDir, files } = store();
      const f2 = files[2] as string;
      await listAllSessions(root, { cache: { dir: cacheDir } });
      chmodSync(f2, 0o000);
      try {
        const warm = await listAllSessions(root, { cache: { dir: cacheDir } });
        const cold = await listAllSessions(root, { cache: false });
        expect(cold.map((i) => i.path)).not.toContain(f2);
        expect(warm).toEqual(cold);
      } finally {
        chmodSync(f2, 0o644);
      }
    },
  );

  it.skipIf(process.platform !== "linux")(
    "leaves no open or orphaned text segment when aborted while files are read",
    async () => {
      const root = tmp();
      for (let k = 0; k < 120; k++) {
        const text = line(hdr(`a${k}`, "/p")) + line(msg("user", `t${k} ${"y".repeat(2000)}`, k));
        writeFileSync(join(root, `2025-01-01T00-00-00-${String(k).padStart(3, "0")}Z_a${k}.jsonl`), text);
      }
      const cacheDir = join(tmp(), "cache");
      const ac = new AbortController();
      await expect(
        listSessionDir(root, {
          cache: { dir: cacheDir },
          concurrency: 8,
          signal: ac.signal,
          onProgress: (loaded) => {
            if (loaded === 30) ac.abort();
          },
        }),
      ).rejects.toThrow();
      const openUnder = (dir: string) =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
          } catch {
            return false;
          }
        });
      // The reads in flight at the abort finish after it: wait until they have (on a busy
      // machine that can take seconds, not the 200 ms of an idle one).
      await new Promise((r) => setTimeout(r, 200));
      const deadline = Date.now() + 60_000;
      while (openUnder(root).length + openUnder(cacheDir).length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(openUnder(root)).toEqual([]);
      expect(openUnder(cacheDir)).toEqual([]);
      expect(readdirSync(cacheDir).filter((f) => f.endsWith(".text"))).toEqual([]);
    },
  );

  it("sees files added, removed and renamed since the cache was saved (names of the same length too)", async () => {
    const { root, cacheDir, files } = store();
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const [f0, f1, f2] = files as [string, string, string];
    // Renamed to a name of the same length, so the old keys still have the new paths' lengths.
    const renamed = f0.replace("_s0.jsonl", "_t0.jsonl");
    renameSync(f0, renamed);
    rmSync(f1);
    const added = join(dirname(f2), "2025-01-09T00-00-00-000Z_s9.jsonl");
    writeFileSync(added, line(hdr("s9", "/proj0")) + line(msg("user", "new one", 9)));
    const now = [renamed, ...files.slice(2), added];
    const stats = newListStats();
    const list = await listAllSessions(root, { cache: { dir: cacheDir }, stats });
    expect(byPath(list)).toEqual(byPath(now.map(reference) as SessionInfo[]));
    expect(stats.filesParsed + stats.filesCached).toBe(now.length);
    expect(await listAllSessions(root, { cache: false })).toEqual(list);
  });

  it("deleting or corrupting the cache changes no result", async () => {
    const { root, cacheDir } = store();
    const first = await listAllSessions(root, { cache: { dir: cacheDir } });
    for (const f of readdirSync(cacheDir)) writeFileSync(join(cacheDir, f), "{corrupt");
    expect(await listAllSessions(root, { cache: { dir: cacheDir } })).toEqual(first);
    for (const f of readdirSync(cacheDir))
      writeFileSync(join(cacheDir, f), JSON.stringify({ version: 1, dir: root, files: { x: 1 } }));
    expect(await listAllSessions(root, { cache: { dir: cacheDir } })).toEqual(first);
    rmSync(cacheDir, { recursive: true, force: true });
    expect(await listAllSessions(root, { cache: { dir: cacheDir } })).toEqual(first);
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
  });

  it("warm texts are read lazily and survive the cache being deleted before access", async () => {
    const { root, cacheDir, files } = store();
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const warm = await listAllSessions(root, { cache: { dir: cacheDir } });
    // Nothing touched the texts yet; now take the cache away and read them.
    rmSync(cacheDir, { recursive: true, force: true });
    expect(byPath(warm)).toEqual(byPath(files.map(reference) as SessionInfo[]));
    expect(Object.keys(warm[0] ?? {})).toContain("allMessagesText");
    expect(JSON.parse(JSON.stringify(warm[0])).allMessagesText).toBe(warm[0]?.allMessagesText);
    // A corrupt text segment is noticed too (the text is recomputed, not misread).
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const again = await listAllSessions(root, { cache: { dir: cacheDir } });
    for (const f of readdirSync(cacheDir))
      if (f.endsWith(".text")) writeFileSync(join(cacheDir, f), "x".repeat(5000));
    expect(byPath(again)).toEqual(byPath(files.map(reference) as SessionInfo[]));
    // Assigning replaces the lazy value like any data property.
    const info = again[1] as SessionInfo;
    info.allMessagesText = "changed";
    expect(info.allMessagesText).toBe("changed");
  });

  it("a warm run with nothing changed does not rewrite the cache", async () => {
    const { root, cacheDir } = store();
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const before = readdirSync(cacheDir).map((f) => [
      f,
      statSync(join(cacheDir, f)).mtimeMs,
      statSync(join(cacheDir, f)).ino,
    ]);
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const after = readdirSync(cacheDir).map((f) => [
      f,
      statSync(join(cacheDir, f)).mtimeMs,
      statSync(join(cacheDir, f)).ino,
    ]);
    expect(after).toEqual(before);
  });

  it("a lazy text read through an object inheriting from the info is the info's text", async () => {
    const { root, cacheDir, files } = store();
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const warm = await listAllSessions(root, { cache: { dir: cacheDir } });
    const first = warm[0] as SessionInfo;
    const child = Object.create(first) as SessionInfo;
    const expected = files.map(reference).find((r) => r?.path === first.path)?.allMessagesText;
    expect(child.allMessagesText).toBe(expected);
    expect(first.allMessagesText).toBe(expected);
  });

  it("breaks ties of modified as pi does (mtime, then name by the collator), with or without progress", async () => {
    const root = tmp();
    const cacheDir = join(tmp(), "cache");
    // Every session has the same modified time; file mtimes tie in pairs; some names repeat across dirs.
    const names = ["b.jsonl", "A.jsonl", "a.jsonl", "_x.jsonl", "-x.jsonl", "10.jsonl", "9.jsonl", "é.jsonl"];
    let k = 0;
    for (const d of ["--one--", "--two--"]) {
      mkdirSync(join(root, d));
      for (const name of names) {
        const p = join(root, d, name);
        writeFileSync(p, line(hdr(`${d}${name}`, "/p")) + line(msg("user", "x", 5000)));
        const t = 1_700_000_000 + (k++ % 3);
        utimesSync(p, t, t);
      }
    }
    const plain = await listAllSessions(root, { cache: false });
    const withProgress = await listAllSessions(root, { cache: false, onProgress: () => {} });
    await listAllSessions(root, { cache: { dir: cacheDir } });
    const warm = await listAllSessions(root, { cache: { dir: cacheDir } });
    expect(plain.map((i) => i.path)).toEqual(withProgress.map((i) => i.path));
    expect(warm.map((i) => i.path)).toEqual(withProgress.map((i) => i.path));
    // pi: candidates by mtime descending, then name descending (localeCompare), stably.
    const expected = plain
      .map((i) => i.path)
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs || basename(b).localeCompare(basename(a)));
    expect(plain.map((i) => i.path)).toEqual(expected);
  });

  it("breaks ties of modified in one directory as pi does (name by the collator), with or without progress", async () => {
    const dir = tmp();
    const cacheDir = join(tmp(), "cache");
    // Names whose collator order is not their code-unit order; every session has the same
    // modified time but two, which tie with each other.
    const names = ["b.jsonl", "A.jsonl", "a.jsonl", "_x.jsonl", "-x.jsonl", "10.jsonl", "9.jsonl", "é.jsonl"];
    names.forEach((name, k) => {
      const at = k === 2 || k === 5 ? 9000 : 5000;
      writeFileSync(join(dir, name), line(hdr(name, "/p")) + line(msg("user", "x", at)));
    });
    const plain = await listSessionDir(dir, { cache: false });
    const withProgress = await listSessionDir(dir, { cache: false, onProgress: () => {} });
    await listSessionDir(dir, { cache: { dir: cacheDir } });
    const warm = await listSessionDir(dir, { cache: { dir: cacheDir } });
    const warmProgress = await listSessionDir(dir, { cache: { dir: cacheDir }, onProgress: () => {} });
    // pi: names descending (localeCompare), then modified descending, stably.
    const expected = plain
      .slice()
      .sort(
        (a, b) =>
          b.modified.getTime() - a.modified.getTime() || basename(b.path).localeCompare(basename(a.path)),
      )
      .map((i) => i.path);
    for (const got of [plain, withProgress, warm, warmProgress])
      expect(got.map((i) => i.path)).toEqual(expected);
  });

  it("uses $XDG_CACHE_HOME/pi-session by default", async () => {
    const { root } = store();
    const xdg = tmp();
    await listAllSessions(root, { env: { XDG_CACHE_HOME: xdg } });
    expect(readdirSync(join(xdg, "pi-session")).some((f) => f.startsWith("list-"))).toBe(true);
  });

  it("agrees with the reference on generated sessions, cached or not, growing or not", async () => {
    const dir = tmp();
    const cacheDir = join(tmp(), "cache");
    let k = 0;
    await fc.assert(
      fc.asyncProperty(arbSessionV3(), fc.nat({ max: 100 }), async (session, cut) => {
        const p = join(dir, `g${k++}.jsonl`);
        const text = toJsonl(session);
        // First list a prefix (a session being written), then the whole file.
        const prefixLen = Math.floor((text.length * cut) / 100);
        writeFileSync(p, text.slice(0, prefixLen));
        const first = await listSessionDir(dir, { cache: { dir: cacheDir } });
        expect(first.find((i) => i.path === p) ?? null).toEqual(reference(p));
        writeFileSync(p, text);
        const second = await listSessionDir(dir, { cache: { dir: cacheDir } });
        expect(second.find((i) => i.path === p) ?? null).toEqual(reference(p));
        rmSync(p);
      }),
      fcOptions({ numRuns: Math.min(60, fcOptions().numRuns) }),
    );
  }, 120_000);
});
