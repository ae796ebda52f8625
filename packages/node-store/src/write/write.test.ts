/**
 * Tests of the writers: exclusive create, the appender (one write per entry, foreign entries,
 * refusal on deleted/truncated/replaced files), torn-tail repair, atomic rewrite, removal to
 * the trash, and fault injection through the `fs` option.
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join, relative } from "node:path";
import type { SessionRecord } from "@pi-session/format";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  SessionFileChangedError,
  SessionFileExistsError,
  SessionFileNotFoundError,
  SessionLockTimeoutError,
} from "../errors.js";
import { lockPathFor } from "../lock/lock.js";
import { readSessionFileSync } from "../read/session-file.js";
import { removeSession } from "../remove/remove.js";
import { type ForeignEntries, SessionWriter } from "./appender.js";
import type { WriterFs } from "../fs/writer-fs.js";
import { createSessionFile } from "./create.js";
import { repairTornTail } from "./torn-tail.js";
import { rewriteSessionFile } from "./rewrite.js";

const dirs = tempDirs("ns-write-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

const header = { type: "session", version: 3, id: "abc", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };
const entry = (id: string, parentId: string | null = null) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: `text ${id}`, timestamp: 1 },
});
const line = (v: unknown) => `${JSON.stringify(v)}\n`;
const fixedNow = () => new Date("2025-06-01T12:00:00.000Z");

function newSession(lines: object[] = [header]): string {
  const path = join(tmp(), "sessions", "s.jsonl");
  createSessionFile(path, lines);
  return path;
}

function filesIn(dir: string): string[] {
  return readdirSync(dir).sort();
}

describe("createSessionFile", () => {
  it("creates parent directories and writes every line in one go", () => {
    const path = join(tmp(), "a", "b", "s.jsonl");
    const r = createSessionFile(path, [header, entry("1")], { durability: "fsync" });
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")));
    expect(r.size).toBe(statSync(path).size);
  });
  it("refuses to overwrite an existing file", () => {
    const path = newSession();
    const before = readFileSync(path);
    expect(() => createSessionFile(path, [header])).toThrow(SessionFileExistsError);
    expect(readFileSync(path)).toEqual(before);
  });
  it("removes the new file when the write fails, so a retry works", () => {
    const path = join(tmp(), "s.jsonl");
    const fs: Partial<WriterFs> = {
      writeSync: () => {
        throw Object.assign(new Error("no space"), { code: "ENOSPC" });
      },
    };
    expect(() => createSessionFile(path, [header], { fs })).toThrow("no space");
    expect(existsSync(path)).toBe(false);
    expect(filesIn(join(path, ".."))).toEqual([]);
    createSessionFile(path, [header]);
    expect(readFileSync(path, "utf8")).toBe(line(header));
  });
  it("publishes atomically: written aside, fsynced, then linked into place (never over a file that appeared)", () => {
    const path = join(tmp(), "s.jsonl");
    const calls: string[] = [];
    let raced = false;
    const fs: Partial<WriterFs> = {
      fsyncSync: (fd) => {
        calls.push(`fsync ${existsSync(path) ? "published" : "aside"}`);
        fsyncSync(fd);
      },
      linkSync: (from, to) => {
        calls.push(
          `link ${String(from).includes(".tmp-") ? "temp" : "?"} -> ${to === path ? "session" : "?"}`,
        );
        // Another creator won the race for the name meanwhile.
        if (raced) writeFileSync(to, "theirs\n");
        linkSync(from, to);
      },
    };
    createSessionFile(path, [header, entry("1")], { fs });
    expect(calls).toEqual(["fsync aside", "link temp -> session"]);
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")));
    expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
    const other = join(tmp(), "t.jsonl");
    raced = true;
    expect(() => createSessionFile(other, [header], { fs })).toThrow(SessionFileExistsError);
    expect(readFileSync(other, "utf8")).toBe("theirs\n");
    expect(filesIn(join(other, ".."))).toEqual(["t.jsonl"]);
  });
  it("without hard links (EPERM), creates the file exclusively in one write instead", () => {
    const path = join(tmp(), "s.jsonl");
    const fs: Partial<WriterFs> = {
      linkSync: () => {
        throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
      },
    };
    createSessionFile(path, [header, entry("1")], { fs });
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")));
    expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
    expect(() => createSessionFile(path, [header], { fs })).toThrow(SessionFileExistsError);
  });
  it("escapes U+2028/U+2029 so no line reader can split an entry", () => {
    const path = join(tmp(), "s.jsonl");
    createSessionFile(path, [{ ...header, cwd: "a\u2028b\u2029c" }]);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("\\u2028");
    expect(JSON.parse(text).cwd).toBe("a\u2028b\u2029c");
  });
});

describe("SessionWriter", () => {
  it("appends one line per entry and tracks the size", () => {
    const path = newSession();
    const w = SessionWriter.open(path);
    const r1 = w.append(entry("1"));
    const r2 = w.append([entry("2", "1"), entry("3", "2")]);
    w.close();
    expect(readFileSync(path, "utf8")).toBe(
      line(header) + line(entry("1")) + line(entry("2", "1")) + line(entry("3", "2")),
    );
    expect(r1).toMatchObject({ foreign: [], offset: line(header).length, written: 1 });
    expect(r2.size).toBe(statSync(path).size);
    expect(w.size).toBe(statSync(path).size);
    expect(w.lineCount).toBe(4);
    expect(existsSync(lockPathFor(path))).toBe(false);
    expect(() => w.append(entry("4"))).toThrow(/closed/);
  });

  it("keeps the lock as a short lease, gives it up when idle, on close, and to this process' other lock users", async () => {
    const path = newSession();
    const w = SessionWriter.open(path, { leaseMs: 30 });
    w.append(entry("1"));
    expect(existsSync(lockPathFor(path))).toBe(true);
    await new Promise((r) => setTimeout(r, 120));
    expect(existsSync(lockPathFor(path))).toBe(false);
    w.append(entry("2", "1"));
    // A standalone operation in the same process does not wait for the lease (no deadlock).
    expect(repairTornTail(path, { lockOptions: { timeoutMs: 200 } }).action).toBe("none");
    w.append(entry("3", "2"));
    w.close();
    expect(existsSync(lockPathFor(path))).toBe(false);
    const w0 = SessionWriter.open(path, { leaseMs: 0 });
    w0.append(entry("4", "3"));
    expect(existsSync(lockPathFor(path))).toBe(false);
    w0.close();
    expect(readSessionFileSync(path).records).toHaveLength(5);
  });

  it("throws SessionFileNotFoundError when the file does not exist", () => {
    expect(() => SessionWriter.open(join(tmp(), "missing.jsonl"))).toThrow(SessionFileNotFoundError);
  });

  it("hands foreign entries to the caller before writing, with their line numbers", () => {
    const path = newSession();
    const seen: SessionRecord[][] = [];
    const w = SessionWriter.open(path, { onForeignEntries: (r) => seen.push(r) });
    w.append(entry("1"));
    appendFileSync(path, `${line(entry("x", "1"))}garbage\n`);
    const r = w.append((foreign) => {
      // The caller sees the foreign entries before anything is written, and re-parents.
      expect(readFileSync(path, "utf8").split("\n")).toHaveLength(5);
      const last = foreign.filter((f) => f.kind === "json").at(-1);
      return entry("2", last?.kind === "json" ? String(last.value.id) : null);
    });
    expect(r.foreign.map((f) => [f.kind, f.line])).toEqual([
      ["json", 3],
      ["raw", 4],
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(r.foreign);
    const records = readSessionFileSync(path).records;
    expect(records.at(-1)).toMatchObject({ kind: "json", line: 5, value: { id: "2", parentId: "x" } });
    expect(w.syncForeign()).toEqual([]);
    w.close();
  });

  it("a line appended by a writer that takes no lock between our check and our write is handed over, not misread", () => {
    const path = newSession([header, entry("1")]);
    const ids = (records: SessionRecord[]) => records.map((r) => (r.kind === "json" ? r.value.id : r.kind));
    // pi appends right before our write number `at` (counted from 1).
    const piBefore = new Map<number, string>();
    let calls = 0;
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) => {
        const pi = piBefore.get(++calls);
        if (pi !== undefined) appendFileSync(path, line(entry(pi, "1")));
        return require_fs().writeSync(fd, buf, offset, length, position);
      },
    };
    const seen: ForeignEntries[] = [];
    const w = SessionWriter.open(path, { fs, onForeignEntries: (_, info) => seen.push(info) });
    piBefore.set(1, "pi-a");
    w.append(entry("2", "1"));
    expect(ids(w.append(entry("3", "2")).foreign)).toEqual(["pi-a"]);
    expect(seen[0]?.records[0]).toMatchObject({ kind: "json", line: 3 });
    // In the middle of a batch.
    piBefore.set(4, "pi-b");
    w.append([entry("4", "3"), entry("5", "4")]);
    expect(ids(w.syncForeign())).toEqual(["pi-b"]);
    expect(w.size).toBe(statSync(path).size);
    expect(w.lineCount).toBe(8);
    // The writer's view is whole again: a rewrite of what it knows keeps their lines.
    const records = readSessionFileSync(path).records;
    expect(ids(records)).toEqual(["abc", "1", "pi-a", "2", "3", "4", "pi-b", "5"]);
    w.rewrite(records);
    w.append(entry("6", "5"));
    w.close();
    expect(ids(readSessionFileSync(path).records)).toEqual([
      "abc",
      "1",
      "pi-a",
      "2",
      "3",
      "4",
      "pi-b",
      "5",
      "6",
    ]);
  });

  it("finds its lines among large foreign ones (reading in chunks, lines across chunk ends)", () => {
    const path = newSession([header, entry("1")]);
    const big = (id: string, parent: string, bytes: number) => ({
      ...entry(id, parent),
      message: { role: "user", content: `${id} ${"z".repeat(bytes)}` },
    });
    let calls = 0;
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) => {
        // pi appends 2.5 MiB right before our first write.
        if (++calls === 1) appendFileSync(path, line(big("pi-a", "1", 2.5 * 2 ** 20)));
        return require_fs().writeSync(fd, buf, offset, length, position);
      },
    };
    const w = SessionWriter.open(path, { fs });
    w.append([big("2", "1", 1.5 * 2 ** 20), entry("3", "2")]);
    // And 3 MiB more after it, before our next check.
    appendFileSync(path, line(big("pi-b", "3", 3 * 2 ** 20)));
    const foreign = w.syncForeign();
    expect(foreign.map((r) => (r.kind === "json" ? r.value.id : r.kind))).toEqual(["pi-a", "pi-b"]);
    expect(w.size).toBe(statSync(path).size);
    expect(w.lineCount).toBe(6);
    w.close();
  });

  it("reports bytes appended after the caller's read when given expectedSize", () => {
    const path = newSession([header, entry("1")]);
    const size = statSync(path).size;
    appendFileSync(path, line(entry("f", "1")));
    const w = SessionWriter.open(path, { expectedSize: size, expectedLines: 2 });
    expect(w.syncForeign().map((r) => (r.kind === "json" ? r.value.id : null))).toEqual(["f"]);
    w.close();
  });

  it("refuses to write to a deleted, truncated or replaced file (never recreates without a header)", () => {
    const deleted = newSession();
    const w1 = SessionWriter.open(deleted);
    unlinkSync(deleted);
    expect(() => w1.append(entry("1"))).toThrow(SessionFileChangedError);
    expect(existsSync(deleted)).toBe(false);
    w1.close();

    const truncated = newSession([header, entry("1")]);
    const w2 = SessionWriter.open(truncated);
    truncateSync(truncated, 10);
    expect(() => w2.append(entry("2"))).toThrow(/truncated/);
    expect(statSync(truncated).size).toBe(10);
    w2.close();

    const replaced = newSession();
    const w3 = SessionWriter.open(replaced);
    writeFileSync(`${replaced}.new`, line(header) + line(entry("9")) + line(entry("10")));
    renameSync(`${replaced}.new`, replaced);
    expect(() => w3.append(entry("2"))).toThrow(/replaced/);
    w3.close();
  });

  it("repairs a torn tail on open: a whole JSON line gets its newline", () => {
    const path = newSession();
    appendFileSync(path, JSON.stringify(entry("1")));
    const w = SessionWriter.open(path);
    expect(w.openRepair).toMatchObject({ action: "completed" });
    w.append(entry("2", "1"));
    w.close();
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")) + line(entry("2", "1")));
  });

  it("repairs a torn tail before append: a fragment goes to a sidecar, byte for byte", () => {
    const path = newSession();
    const w = SessionWriter.open(path, { now: fixedNow });
    appendFileSync(path, '{"type":"message","id":"frag');
    const r = w.append(entry("1"));
    w.close();
    expect(r.repair).toMatchObject({ action: "quarantined", byteLength: 28 });
    const sidecar = r.repair?.sidecarPath ?? "";
    expect(sidecar).toBe(`${path}.torn-2025-06-01T12-00-00-000Z`);
    expect(readFileSync(sidecar, "utf8")).toBe('{"type":"message","id":"frag');
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")));
  });

  it("completing a torn tail while a writer that takes no lock appends: its lines are handed over, none misread", () => {
    const path = newSession([header, entry("1")]);
    const ids = (records: SessionRecord[]) => records.map((r) => (r.kind === "json" ? r.value.id : r.kind));
    let inject = false;
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) => {
        if (inject && length === 1 && buf[offset] === 10) {
          // pi's line was being written (all but its `\n` was seen); it ends it, and appends one
          // more, between the repair's look at the tail and its `\n`.
          inject = false;
          appendFileSync(path, `\n${line(entry("c", "x"))}`);
        }
        return require_fs().writeSync(fd, buf, offset, length, position);
      },
    };
    const w = SessionWriter.open(path, { fs });
    appendFileSync(path, JSON.stringify(entry("x", "1")));
    inject = true;
    const r1 = w.append((foreign) =>
      entry("2", String((foreign.at(-1) as unknown as { value: { id: string } }).value.id)),
    );
    expect(ids(r1.foreign)).toEqual(["x", "c"]);
    expect(r1.repair).toMatchObject({ action: "completed" });
    const r2 = w.append(entry("3", "2"));
    expect(r2.foreign).toEqual([]);
    expect(w.size).toBe(statSync(path).size);
    w.close();
    const lines = readFileSync(path, "utf8").split("\n");
    // Our `\n` went to the end of the file (O_APPEND) as a blank line; no byte was overwritten.
    expect(lines.map((l) => (l === "" ? "" : JSON.parse(l).id))).toEqual([
      "abc",
      "1",
      "x",
      "c",
      "",
      "2",
      "3",
      "",
    ]);
  });

  it("fsyncs every append with durability fsync", () => {
    const path = newSession();
    let syncs = 0;
    const w = SessionWriter.open(path, {
      durability: "fsync",
      fs: {
        fsyncSync: (fd) => {
          syncs++;
          return require_fs().fsyncSync(fd);
        },
      },
    });
    w.append(entry("1"));
    w.append(entry("2"));
    w.close();
    expect(syncs).toBe(2);
  });

  it("a failed write leaves the file as it was (partial write cut back, whole batch undone)", () => {
    const path = newSession([header, entry("1")]);
    const before = readFileSync(path);
    let calls = 0;
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) => {
        calls++;
        // Half of the second entry reaches the disk (a short write), then the disk is full.
        if (calls === 2) return require_fs().writeSync(fd, buf, offset, Math.floor(length / 2), position);
        if (calls === 3)
          throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        return require_fs().writeSync(fd, buf, offset, length, position);
      },
    };
    const w = SessionWriter.open(path, { fs });
    expect(() => w.append([entry("2", "1"), entry("3", "2")])).toThrow(/ENOSPC/);
    expect(readFileSync(path)).toEqual(before);
    expect(existsSync(lockPathFor(path))).toBe(false);
    // The writer is still usable and consistent afterwards.
    w.append(entry("4", "1"));
    w.close();
    expect(readFileSync(path, "utf8")).toBe(before.toString("utf8") + line(entry("4", "1")));
  });

  it("a failed write cuts nothing when a writer that takes no lock appended meanwhile; next time its line is handed over and our piece kept", () => {
    const path = newSession([header, entry("1")]);
    const before = readFileSync(path, "utf8");
    const pi = line(entry("pi", "1"));
    let ours = "";
    let fail = true;
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) => {
        if (!fail) return require_fs().writeSync(fd, buf, offset, length, position);
        fail = false;
        // pi appends a whole line between our check and our write; then half of our line
        // reaches the disk and the disk is full.
        appendFileSync(path, pi);
        const half = Math.floor(length / 2);
        require_fs().writeSync(fd, buf, offset, half, position);
        ours = Buffer.from(buf.subarray(offset, offset + half)).toString("utf8");
        throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      },
    };
    const seen: SessionRecord[] = [];
    const w = SessionWriter.open(path, { fs, now: fixedNow, onForeignEntries: (r) => seen.push(...r) });
    expect(() => w.append(entry("2", "1"))).toThrow(/ENOSPC/);
    expect(readFileSync(path, "utf8")).toBe(before + pi + ours);
    const r = w.append((foreign) => {
      const last = foreign.at(-1);
      return entry("3", last?.kind === "json" ? String(last.value.id) : null);
    });
    expect(r.foreign.map((f) => (f.kind === "json" ? f.value.id : f.kind))).toEqual(["pi"]);
    expect(seen).toEqual(r.foreign);
    expect(r.repair).toMatchObject({ action: "quarantined", byteLength: Buffer.byteLength(ours) });
    expect(readFileSync(r.repair?.sidecarPath ?? "", "utf8")).toBe(ours);
    expect(readFileSync(path, "utf8")).toBe(before + pi + line(entry("3", "pi")));
    w.close();
  });

  it("handles short writes by writing the rest", () => {
    const path = newSession();
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) =>
        require_fs().writeSync(fd, buf, offset, Math.min(length, 7), position),
    };
    const w = SessionWriter.open(path, { fs });
    w.append(entry("1"));
    w.close();
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")));
  });

  it("rewrite() replaces the file and keeps appending to the new one", () => {
    const path = newSession([header, entry("1")]);
    const w = SessionWriter.open(path);
    const records = readSessionFileSync(path).records;
    w.rewrite([...records, entry("2", "1")], { backup: true, now: fixedNow });
    w.append(entry("3", "2"));
    w.close();
    expect(readFileSync(path, "utf8")).toBe(
      line(header) + line(entry("1")) + line(entry("2", "1")) + line(entry("3", "2")),
    );
    expect(readFileSync(`${path}.bak-2025-06-01T12-00-00-000Z`, "utf8")).toBe(
      line(header) + line(entry("1")),
    );
  });

  it("rewrite() refuses when others appended, before or while it writes, and drops nothing", () => {
    const path = newSession([header, entry("1")]);
    const records = readSessionFileSync(path).records;
    const w = SessionWriter.open(path);
    appendFileSync(path, line(entry("a", "1")));
    expect(() => w.rewrite([...records, entry("2", "1")])).toThrow(/was appended by someone else/);
    // Now while the new file is synced (a writer that takes no lock, such as pi).
    let once = true;
    const fs: Partial<WriterFs> = {
      fsyncSync: (fd) => {
        if (once) appendFileSync(path, line(entry("b", "a")));
        once = false;
        fsyncSync(fd);
      },
    };
    const w2 = SessionWriter.open(path, { fs });
    expect(() => w2.rewrite([...records, entry("2", "1")])).toThrow(/was appended by someone else/);
    expect(readFileSync(path, "utf8")).toBe(
      line(header) + line(entry("1")) + line(entry("a", "1")) + line(entry("b", "a")),
    );
    expect(filesIn(join(path, "..")).filter((f) => f.includes(".tmp-"))).toEqual([]);
    w.close();
    w2.close();
  });
});

describe("SessionWriter within a held lease (the end probe, decision 132)", () => {
  /** A writer whose lease outlasts the test: every append after the first is within it. */
  const held = { leaseMs: 60_000, maxHoldMs: 60_000 };
  const ids = (records: readonly SessionRecord[]) =>
    records.map((r) => (r.kind === "json" ? r.value.id : r.kind));

  it("a line appended by a writer that takes no lock is found at the next append and handed over", () => {
    const path = newSession();
    const w = SessionWriter.open(path, held);
    w.append(entry("1"));
    w.append(entry("2", "1"));
    appendFileSync(path, line(entry("f", "2")));
    const r = w.append(entry("3", "f"));
    expect(ids(r.foreign)).toEqual(["f"]);
    expect(w.size).toBe(statSync(path).size);
    expect(w.lineCount).toBe(5);
    w.close();
    expect(ids(readSessionFileSync(path).records)).toEqual(["abc", "1", "2", "f", "3"]);
  });

  it("a truncation is refused at the next append, whether cut inside the last line or at a line end", () => {
    const path = newSession();
    const w = SessionWriter.open(path, held);
    w.append(entry("1"));
    w.append(entry("2", "1"));
    const size = statSync(path).size;
    truncateSync(path, size - 3);
    expect(() => w.append(entry("3", "2"))).toThrow(/truncated/);
    expect(statSync(path).size).toBe(size - 3);
    w.close();

    const path2 = newSession();
    const w2 = SessionWriter.open(path2, held);
    w2.append(entry("1"));
    w2.append(entry("2", "1"));
    truncateSync(path2, line(header).length + line(entry("1")).length);
    expect(() => w2.append(entry("3", "2"))).toThrow(/truncated/);
    w2.close();
  });

  it("a file rewritten in place, longer, by a writer that takes no lock: its new bytes are read as foreign", () => {
    const path = newSession();
    const w = SessionWriter.open(path, held);
    w.append(entry("1"));
    w.append(entry("2", "1"));
    const size = statSync(path).size;
    // Same bytes up to our end except the last newline, then more: never mistaken for "unchanged".
    const bytes = readFileSync(path, "utf8");
    writeFileSync(path, `${bytes.slice(0, -1)} \n${line(entry("x", "2"))}`);
    expect(statSync(path).size).toBeGreaterThan(size);
    const r = w.append(entry("3", "2"));
    expect(r.foreign.length).toBeGreaterThan(0);
    expect(w.size).toBe(statSync(path).size);
    w.close();
  });

  it("a deletion is found within 101 appends of a lease that never ends, and at once when the lease is given up", () => {
    const path = newSession();
    const w = SessionWriter.open(path, held);
    w.append(entry("0"));
    unlinkSync(path);
    let found = -1;
    for (let i = 1; i <= 101 && found < 0; i++) {
      try {
        w.append(entry(String(i)));
      } catch (error) {
        expect(error).toBeInstanceOf(SessionFileChangedError);
        expect((error as SessionFileChangedError).reason).toBe("deleted");
        found = i;
      }
    }
    expect(found).toBeGreaterThan(0);
    expect(existsSync(path)).toBe(false);
    w.close();

    const path2 = newSession();
    const w2 = SessionWriter.open(path2, held);
    w2.append(entry("1"));
    w2.append(entry("2", "1"));
    unlinkSync(path2);
    w2.releaseLock();
    expect(() => w2.append(entry("3", "2"))).toThrow(/deleted/);
    expect(existsSync(path2)).toBe(false);
    w2.close();
  });

  it("a replacement is found once the lease is given up (by the timer here), the new file untouched", async () => {
    const path = newSession();
    const w = SessionWriter.open(path, { leaseMs: 20 });
    w.append(entry("1"));
    w.append(entry("2", "1"));
    const other = line(header) + line(entry("other"));
    writeFileSync(`${path}.new`, other);
    renameSync(`${path}.new`, path);
    await new Promise((r) => setTimeout(r, 80));
    expect(existsSync(lockPathFor(path))).toBe(false);
    expect(() => w.append(entry("3", "2"))).toThrow(/replaced/);
    expect(readFileSync(path, "utf8")).toBe(other);
    w.close();
  });

  it("stats the open file about once per 100 appends within a lease, not before every append", () => {
    const path = newSession();
    let fstats = 0;
    const fs: Partial<WriterFs> = {
      fstatSync: ((fd: number) => {
        fstats++;
        return fstatSync(fd);
      }) as WriterFs["fstatSync"],
    };
    const w = SessionWriter.open(path, { ...held, fs });
    const atOpen = fstats;
    for (let i = 0; i < 250; i++) w.append(entry(String(i)));
    w.close();
    expect(fstats - atOpen).toBeGreaterThanOrEqual(2);
    expect(fstats - atOpen).toBeLessThanOrEqual(4);
    expect(readSessionFileSync(path).records).toHaveLength(251);
  });
});

describe("repairTornTail", () => {
  it("does nothing to a clean or empty file", () => {
    const path = newSession();
    expect(repairTornTail(path)).toMatchObject({ action: "none" });
    writeFileSync(path, "");
    expect(repairTornTail(path)).toMatchObject({ action: "none", size: 0 });
  });
  it("completes a whole JSON object and quarantines anything else", () => {
    const path = newSession();
    appendFileSync(path, '{"a":1}');
    expect(repairTornTail(path)).toMatchObject({ action: "completed" });
    expect(readFileSync(path, "utf8")).toBe(`${line(header)}{"a":1}\n`);
    appendFileSync(path, "[1,2]");
    const r = repairTornTail(path, { now: fixedNow });
    expect(r.action).toBe("quarantined");
    expect(readFileSync(r.sidecarPath ?? "", "utf8")).toBe("[1,2]");
    expect(readFileSync(path, "utf8")).toBe(`${line(header)}{"a":1}\n`);
  });
  it("never overwrites an earlier sidecar", () => {
    const path = newSession();
    appendFileSync(path, "frag1");
    const a = repairTornTail(path, { now: fixedNow });
    appendFileSync(path, "frag2");
    const b = repairTornTail(path, { now: fixedNow });
    expect(a.sidecarPath).not.toBe(b.sidecarPath);
    expect(readFileSync(a.sidecarPath ?? "", "utf8")).toBe("frag1");
    expect(readFileSync(b.sidecarPath ?? "", "utf8")).toBe("frag2");
  });
  it("keeps a fragment longer than a read block intact, and a fragment that is the whole file", () => {
    const path = newSession();
    const big = `{"x":"${"y".repeat(200_000)}`;
    appendFileSync(path, big);
    const r = repairTornTail(path);
    expect(readFileSync(r.sidecarPath ?? "", "utf8")).toBe(big);
    writeFileSync(path, "no newline at all");
    const r2 = repairTornTail(path, { now: () => new Date(0) });
    expect(r2).toMatchObject({ action: "quarantined", offset: 0, size: 0 });
    expect(readFileSync(r2.sidecarPath ?? "", "utf8")).toBe("no newline at all");
  });
  it("leaves the session untouched when the sidecar cannot be written", () => {
    const path = newSession();
    appendFileSync(path, "frag");
    const before = readFileSync(path);
    const fs: Partial<WriterFs> = {
      fsyncSync: () => {
        throw Object.assign(new Error("EIO"), { code: "EIO" });
      },
    };
    expect(() => repairTornTail(path, { fs })).toThrow("EIO");
    expect(readFileSync(path)).toEqual(before);
    expect(filesIn(join(path, "..")).filter((f) => f.includes(".torn-"))).toEqual([]);
  });
  it("cuts nothing when the torn line was an append still being written (the file grew meanwhile)", () => {
    const path = newSession();
    const theirs = line(entry("theirs"));
    appendFileSync(path, theirs.slice(0, 20));
    const dir = join(path, "..");
    // A writer that takes no lock finishes its line while the fragment is being saved.
    let finish = true;
    const fs: Partial<WriterFs> = {
      fsyncSync: (fd) => {
        if (finish && filesIn(dir).some((f) => f.includes(".torn-"))) {
          finish = false;
          appendFileSync(path, theirs.slice(20));
        }
        fsyncSync(fd);
      },
    };
    expect(repairTornTail(path, { fs })).toMatchObject({ action: "none" });
    expect(readFileSync(path, "utf8")).toBe(`${line(header)}${theirs}`);
    expect(filesIn(dir).filter((f) => f.includes(".torn-"))).toEqual([]);
    // A file that keeps growing is refused, not cut; nothing is lost.
    appendFileSync(path, "frag");
    const growing: Partial<WriterFs> = {
      fsyncSync: (fd) => {
        if (filesIn(dir).some((f) => f.includes(".torn-"))) appendFileSync(path, "+");
        fsyncSync(fd);
      },
    };
    expect(() => repairTornTail(path, { fs: growing })).toThrow(SessionFileChangedError);
    // Three attempts, each growing the file at both syncs (the copy's, then its directory's).
    expect(readFileSync(path, "utf8")).toBe(`${line(header)}${theirs}frag++++++`);
    expect(filesIn(dir).filter((f) => f.includes(".torn-"))).toEqual([]);
  });
  it("never writes its newline over bytes a writer that takes no lock appended meanwhile", () => {
    const path = newSession();
    appendFileSync(path, '{"a":1}');
    const theirs = line(entry("theirs"));
    let inject = true;
    const fs: Partial<WriterFs> = {
      writeSync: (fd, buf, offset = 0, length = buf.length - offset, position = null) => {
        if (inject && length === 1 && buf[offset] === 10) {
          inject = false;
          appendFileSync(path, theirs);
        }
        return require_fs().writeSync(fd, buf, offset, length, position);
      },
    };
    const r = repairTornTail(path, { fs });
    // Their line was appended to the torn one (that is what a writer without a lock does); it
    // keeps every byte, and the newline goes after it.
    expect(readFileSync(path, "utf8")).toBe(`${line(header)}{"a":1}${theirs}\n`);
    expect(r).toMatchObject({ action: "completed", size: statSync(path).size });
  });

  it("throws SessionFileNotFoundError for a missing file", () => {
    expect(() => repairTornTail(join(tmp(), "x.jsonl"))).toThrow(SessionFileNotFoundError);
  });
});

describe("rewriteSessionFile", () => {
  it("writes raw (malformed) lines back at their positions and completes a torn tail", () => {
    const path = newSession();
    appendFileSync(path, `not json\n${line(entry("1"))}\u0000bad\n{"torn":`);
    const { records } = readSessionFileSync(path);
    const r = rewriteSessionFile(path, records);
    expect(readFileSync(path, "utf8")).toBe(
      `${line(header)}not json\n${line(entry("1"))}\u0000bad\n{"torn":\n`,
    );
    expect(r.size).toBe(statSync(path).size);
    expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
  });

  it("accepts plain entries, keeps a backup, and replaces the inode atomically", () => {
    const path = newSession([header, entry("1")]);
    const before = readFileSync(path);
    const ino = statSync(path).ino;
    const r = rewriteSessionFile(path, [header, entry("1"), entry("2", "1")], {
      backup: true,
      now: fixedNow,
    });
    expect(statSync(path).ino).not.toBe(ino);
    expect(readFileSync(r.backupPath ?? "")).toEqual(before);
    const named = rewriteSessionFile(path, [header], { backup: join(tmp(), "copy.bak") });
    expect(readFileSync(named.backupPath ?? "", "utf8")).toContain('"id":"2"');
  });

  it("gives a second backup in the same millisecond its own name (-1, -2), as sidecars", () => {
    const path = newSession([header, entry("1")]);
    const first = readFileSync(path);
    const a = rewriteSessionFile(path, [header, entry("1"), entry("2", "1")], {
      backup: true,
      now: fixedNow,
    });
    const second = readFileSync(path);
    const b = rewriteSessionFile(path, [header], { backup: true, now: fixedNow });
    const c = rewriteSessionFile(path, [header, entry("3")], { backup: true, now: fixedNow });
    expect(a.backupPath).toBe(`${path}.bak-2025-06-01T12-00-00-000Z`);
    expect(b.backupPath).toBe(`${path}.bak-2025-06-01T12-00-00-000Z-1`);
    expect(c.backupPath).toBe(`${path}.bak-2025-06-01T12-00-00-000Z-2`);
    expect(readFileSync(a.backupPath ?? "")).toEqual(first);
    expect(readFileSync(b.backupPath ?? "")).toEqual(second);
    expect(readFileSync(c.backupPath ?? "", "utf8")).toBe(line(header));
    // Also when links are not possible and the backup is a copy.
    const fs: Partial<WriterFs> = {
      linkSync: () => {
        throw Object.assign(new Error("EPERM"), { code: "EPERM" });
      },
    };
    const d = rewriteSessionFile(path, [header], { backup: true, now: fixedNow, fs });
    expect(d.backupPath).toBe(`${path}.bak-2025-06-01T12-00-00-000Z-3`);
    expect(readFileSync(d.backupPath ?? "", "utf8")).toBe(line(header) + line(entry("3")));
  });

  it("fails, writing nothing, when the backup asked for cannot be made (no silent rewrite without it)", () => {
    const path = newSession([header, entry("1")]);
    const before = readFileSync(path);
    expect(() => rewriteSessionFile(path, [header], { backup: join(tmp(), "no-such-dir", "s.bak") })).toThrow(
      /ENOENT/,
    );
    expect(readFileSync(path)).toEqual(before);
    expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
  });

  it("keeps the file's permissions (a 0600 session stays 0600), also through a writer's rewrite()", () => {
    const path = newSession([header, entry("1")]);
    chmodSync(path, 0o600);
    rewriteSessionFile(path, [header, entry("1"), entry("2", "1")], { backup: true });
    expect(statSync(path).mode & 0o7777).toBe(0o600);
    chmodSync(path, 0o640);
    const w = SessionWriter.open(path);
    w.rewrite([header]);
    w.append(entry("3"));
    w.close();
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    // A new file gets the usual mode (0644 less the umask).
    const fresh = join(tmp(), "new.jsonl");
    rewriteSessionFile(fresh, [header]);
    expect(statSync(fresh).mode & 0o7777 & ~0o644).toBe(0);
  });

  it("refuses, leaving the original, when the permissions cannot be carried over", () => {
    const path = newSession([header, entry("1")]);
    chmodSync(path, 0o600);
    const before = readFileSync(path);
    const fs: Partial<WriterFs> = {
      fchmodSync: () => {
        throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
      },
    };
    expect(() => rewriteSessionFile(path, [header], { fs })).toThrow(/EPERM/);
    expect(readFileSync(path)).toEqual(before);
    expect(statSync(path).mode & 0o7777).toBe(0o600);
    expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
  });

  it("quarantineTornTail: a torn fragment goes to a .torn-* sidecar (same mode), not back as a malformed line", () => {
    const path = newSession([header, entry("1")]);
    chmodSync(path, 0o600);
    appendFileSync(path, '{"type":"message","id":"to');
    const { records, size } = readSessionFileSync(path);
    const r = rewriteSessionFile(path, [...records, entry("2", "1")], {
      quarantineTornTail: true,
      expectedSize: size,
      now: fixedNow,
    });
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")) + line(entry("2", "1")));
    expect(r.sidecarPath).toBe(`${path}.torn-2025-06-01T12-00-00-000Z`);
    expect(readFileSync(r.sidecarPath ?? "", "utf8")).toBe('{"type":"message","id":"to');
    expect(statSync(r.sidecarPath ?? "").mode & 0o777).toBe(0o600);
    // A whole last line without its `\n` is no fragment: it is completed, as without the option.
    appendFileSync(path, JSON.stringify(entry("3")));
    const again = readSessionFileSync(path);
    expect(rewriteSessionFile(path, again.records, { quarantineTornTail: true }).sidecarPath).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe(
      line(header) + line(entry("1")) + line(entry("2", "1")) + line(entry("3")),
    );
  });

  it("quarantineTornTail: a fragment that grows while the rewrite runs (an append in flight) is not cut", () => {
    const path = newSession([header, entry("1")]);
    const whole = line(entry("pi"));
    appendFileSync(path, whole.slice(0, 20));
    const { records, size } = readSessionFileSync(path);
    // pi's write completes while the sidecar is synced, after the first size check.
    let sidecarSynced = false;
    const fs: Partial<WriterFs> = {
      fsyncSync: (fd) => {
        fsyncSync(fd);
        if (!sidecarSynced && filesIn(join(path, "..")).some((f) => f.includes(".torn-"))) {
          sidecarSynced = true;
          appendFileSync(path, whole.slice(20));
        }
      },
    };
    expect(() =>
      rewriteSessionFile(path, [...records, entry("2", "1")], {
        quarantineTornTail: true,
        expectedSize: size,
        fs,
      }),
    ).toThrow(/was appended by someone else/);
    expect(sidecarSynced).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")) + whole);
    expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
  });

  it("refuses when expectedSize does not match", () => {
    const path = newSession([header, entry("1")]);
    expect(() => rewriteSessionFile(path, [header], { expectedSize: 3 })).toThrow(SessionFileChangedError);
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")));
  });

  it("refuses, keeping the lines, when a writer that takes no lock appends while the new file is written", () => {
    const path = newSession([header, entry("1")]);
    const size = statSync(path).size;
    // pi's append, landing while the temp file is synced (after the first size check).
    const fs: Partial<WriterFs> = {
      fsyncSync: (fd) => {
        appendFileSync(path, line(entry("pi")));
        fsyncSync(fd);
      },
    };
    const backup = join(tmp(), "b.bak");
    expect(() =>
      rewriteSessionFile(path, [header, entry("1"), entry("2")], { expectedSize: size, fs, backup }),
    ).toThrow(/was appended by someone else/);
    expect(readFileSync(path, "utf8")).toBe(line(header) + line(entry("1")) + line(entry("pi")));
    expect(existsSync(backup)).toBe(false);
    expect(filesIn(join(path, "..")).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  const failures: (keyof WriterFs)[][] = [
    ["writeSync"],
    ["fsyncSync"],
    ["linkSync", "copyFileSync"],
    ["renameSync"],
  ];
  for (const failing of failures) {
    it(`leaves the original bytes and no temp or backup file when ${failing.join(" and ")} fail`, () => {
      const path = newSession([header, entry("1")]);
      const before = readFileSync(path);
      const fail = () => {
        throw Object.assign(new Error("injected failure"), { code: "EIO" });
      };
      const fs: Partial<WriterFs> = Object.fromEntries(failing.map((name) => [name, fail]));
      expect(() => rewriteSessionFile(path, [header], { fs, backup: true })).toThrow("injected failure");
      expect(readFileSync(path)).toEqual(before);
      expect(filesIn(join(path, ".."))).toEqual(["s.jsonl"]);
    });
  }

  it("falls back to a copy for the backup when hard links fail", () => {
    const path = newSession([header, entry("1")]);
    const before = readFileSync(path);
    const fs: Partial<WriterFs> = {
      linkSync: () => {
        throw Object.assign(new Error("EPERM"), { code: "EPERM" });
      },
    };
    const r = rewriteSessionFile(path, [header], { fs, backup: true });
    expect(readFileSync(r.backupPath ?? "")).toEqual(before);
  });

  it("creates the file when it does not exist", () => {
    const path = join(tmp(), "new.jsonl");
    rewriteSessionFile(path, [header], { backup: true });
    expect(readFileSync(path, "utf8")).toBe(line(header));
    expect(filesIn(tmp())).toEqual([]);
  });
});

describe("sessions reached through a symlink", () => {
  /** A session in one directory and a relative link to it in another. */
  function linked(): { real: string; link: string } {
    const real = newSession([header, entry("1")]);
    const linkDir = join(tmp(), "links");
    mkdirSync(linkDir);
    const link = join(linkDir, "s.jsonl");
    symlinkSync(relative(linkDir, real), link);
    return { real, link };
  }
  const tempOrLock = (dir: string) => filesIn(dir).filter((f) => f.includes(".tmp-") || f.endsWith(".lock"));

  it("a rewrite replaces the target (link kept, backup and temp next to the target)", () => {
    const { real, link } = linked();
    chmodSync(real, 0o600);
    const before = readFileSync(real);
    const r = rewriteSessionFile(link, [header, entry("1"), entry("2", "1")], {
      backup: true,
      now: fixedNow,
    });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(link, "utf8")).toBe(line(header) + line(entry("1")) + line(entry("2", "1")));
    expect(statSync(real).mode & 0o7777).toBe(0o600);
    expect(r.path).toBe(link);
    expect(r.backupPath).toBe(`${realpathSync(real)}.bak-2025-06-01T12-00-00-000Z`);
    expect(readFileSync(r.backupPath ?? "")).toEqual(before);
    expect(filesIn(join(link, ".."))).toEqual(["s.jsonl"]);
    expect(tempOrLock(join(real, ".."))).toEqual([]);
  });

  it("a writer opened through the link appends to, and rewrites, the target", () => {
    const { real, link } = linked();
    const w = SessionWriter.open(link, { leaseMs: 60_000 });
    w.append(entry("2", "1"));
    // One lock for the file, however it is named.
    expect(existsSync(`${realpathSync(real)}.lock`)).toBe(true);
    expect(existsSync(`${link}.lock`)).toBe(false);
    w.rewrite([header, entry("2")]);
    w.append(entry("3", "2"));
    w.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe(line(header) + line(entry("2")) + line(entry("3", "2")));
    expect(w.path).toBe(link);
  });

  it("every writer takes the target's lock: a lock held on the real path blocks them all", () => {
    const { real, link } = linked();
    expect(lockPathFor(link)).toBe(`${realpathSync(real)}.lock`);
    expect(lockPathFor(real)).toBe(lockPathFor(link));
    // A live lock, as another process would hold it while it rewrites the real path.
    writeFileSync(
      `${real}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), time: Date.now() }),
    );
    const lockOptions = { timeoutMs: 30 };
    expect(() => SessionWriter.open(link, { lockOptions })).toThrow(SessionLockTimeoutError);
    expect(() => rewriteSessionFile(link, [header], { lockOptions })).toThrow(SessionLockTimeoutError);
    expect(() => repairTornTail(link, { lockOptions })).toThrow(SessionLockTimeoutError);
    expect(readFileSync(real, "utf8")).toBe(line(header) + line(entry("1")));
    unlinkSync(`${real}.lock`);
  });

  it("a torn tail found through the link is kept next to the target", () => {
    const { real, link } = linked();
    appendFileSync(real, "frag");
    const r = repairTornTail(link, { now: fixedNow });
    expect(r).toMatchObject({ action: "quarantined", path: link });
    expect(r.sidecarPath).toBe(`${realpathSync(real)}.torn-2025-06-01T12-00-00-000Z`);
    expect(readFileSync(r.sidecarPath ?? "", "utf8")).toBe("frag");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it("creating through a dangling link creates the file it points to", () => {
    const dir = tmp();
    mkdirSync(join(dir, "real"));
    const link = join(dir, "s.jsonl");
    symlinkSync(join("real", "target.jsonl"), link);
    createSessionFile(link, [header]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "real", "target.jsonl"), "utf8")).toBe(line(header));
    expect(() => createSessionFile(link, [header])).toThrow(SessionFileExistsError);
  });
});

describe("removeSession", () => {
  it("moves to an existing freedesktop trash with a .trashinfo", () => {
    const home = tmp();
    const dataHome = join(home, "data");
    mkdirSync(join(dataHome, "Trash"), { recursive: true });
    const path = newSession();
    const r = removeSession(path, {
      env: { XDG_DATA_HOME: dataHome },
      home,
      platform: "linux",
      now: fixedNow,
    });
    expect(r.method).toBe("trash");
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(r.trashPath ?? "", "utf8")).toBe(line(header));
    const info = readFileSync(join(dataHome, "Trash", "info", "s.jsonl.trashinfo"), "utf8");
    expect(info).toMatch(
      /^\[Trash Info\]\nPath=\/.*\/s\.jsonl\nDeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$/,
    );
    // A second file with the same name gets a new name.
    const again = join(path, "..", "s.jsonl");
    writeFileSync(again, "x\n");
    const r2 = removeSession(again, { env: { XDG_DATA_HOME: dataHome }, home, platform: "linux" });
    expect(r2.trashPath).not.toBe(r.trashPath);
  });
  it("unlinks when no trash directory exists", () => {
    const home = tmp();
    const path = newSession();
    expect(
      removeSession(path, { env: { XDG_DATA_HOME: join(home, "none") }, home, platform: "linux" }),
    ).toEqual({
      method: "unlink",
      companions: [],
    });
    expect(existsSync(path)).toBe(false);
  });
  it("uses ~/.Trash on macOS and unlinks when trash is off", () => {
    const home = tmp();
    mkdirSync(join(home, ".Trash"));
    const p1 = newSession();
    expect(removeSession(p1, { home, platform: "darwin" })).toMatchObject({ method: "trash" });
    expect(existsSync(join(home, ".Trash", "s.jsonl"))).toBe(true);
    const p2 = newSession();
    expect(removeSession(p2, { home, platform: "darwin", trash: false })).toEqual({
      method: "unlink",
      companions: [],
    });
  });
  it("throws SessionFileNotFoundError for a missing file", () => {
    expect(() => removeSession(join(tmp(), "x.jsonl"))).toThrow(SessionFileNotFoundError);
  });
});

// `node:fs` for the pass-through parts of the fault-injecting overrides.
import * as realFs from "node:fs";
function require_fs(): typeof realFs {
  return realFs;
}
