/**
 * Multi-process tests against the built package (`dist/`, so run the build first):
 * - crash: a child appends in a loop and is SIGKILLed at random moments; every entry whose
 *   append had returned survives, and any partial line ends up in a sidecar, byte for byte;
 * - concurrency: four processes append 500 entries each to one session; every line is valid,
 *   every id unique, and because each writer re-parents onto the entries it finds, the whole
 *   file is one linear chain.
 * @module-tag processes
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { SessionLockTimeoutError } from "../errors.js";
import { acquireLock, lockPathFor } from "../lock/lock.js";
import { readSessionFileSync } from "../read/session-file.js";
import { SessionWriter } from "./appender.js";
import { createSessionFile } from "./create.js";

const distIndex = pathToFileURL(
  join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "index.js"),
).href;

const dirs = tempDirs("ns-proc-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

const header = { type: "session", version: 3, id: "crash", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };

/** The entry a child writes for an id (deterministic, so a fragment can be checked exactly). */
const ENTRY_SOURCE = `
function entryFor(id, parentId) {
  const n = Number(id.split("-").pop());
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2025-01-01T00:00:01.000Z",
    message: { role: "user", content: "payload ".repeat(20 + (n % 50)) + id, timestamp: 1 },
  };
}`;

const CRASH_CHILD = `
import { SessionWriter } from ${JSON.stringify(distIndex)};
import { writeSync as realWrite } from "node:fs";
${ENTRY_SOURCE}
const [path, round, chunked] = process.argv.slice(2);
// In "chunked" rounds every write is split in 16-byte pieces, so a kill can land mid-entry
// (a real write(2) of one small line is not interrupted by SIGKILL).
const fs = chunked === "1"
  ? { writeSync: (fd, buf, off = 0, len = buf.length - off, pos = null) => realWrite(fd, buf, off, Math.min(len, 16), pos) }
  : undefined;
const w = SessionWriter.open(path, { fs });
let parent = null;
for (let i = 0; ; i++) {
  const id = "r" + round + "-" + i;
  w.append((foreign) => {
    const last = foreign.filter((r) => r.kind === "json").at(-1);
    if (last) parent = last.value.id;
    return entryFor(id, parent);
  });
  parent = id;
  process.stdout.write(id + "\\n");
}
`;

const APPEND_CHILD = `
import { SessionWriter, readSessionFileSync } from ${JSON.stringify(distIndex)};
${ENTRY_SOURCE}
const [path, worker, count] = process.argv.slice(2);
// Read first, then open with the size read: whatever others append in between is foreign.
// The read takes no lock, so its last line may be another child's append half written (a
// read is not atomic with a write): what is known then ends before that line.
const read = readSessionFileSync(path);
const known = read.tornTail ? read.tornTail.offset : read.size;
const knownLines = read.tornTail ? read.lines - 1 : read.lines;
const w = SessionWriter.open(path, { lockOptions: { timeoutMs: 60000 }, expectedSize: known, expectedLines: knownLines });
let parent = read.records.filter((r) => r.kind === "json" && r.offset < known).at(-1).value.id;
for (let i = 0; i < Number(count); i++) {
  const id = "w" + worker + "-" + i;
  w.append((foreign) => {
    const last = foreign.filter((r) => r.kind === "json").at(-1);
    if (last) parent = last.value.id;
    return entryFor(id, parent);
  });
  parent = id;
}
w.close();
`;

/** A writer that takes no lock, as pi: one appendFileSync per entry, as fast as it can. */
const PI_CHILD = `
import { appendFileSync } from "node:fs";
${ENTRY_SOURCE}
const [path, count] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) appendFileSync(path, JSON.stringify(entryFor("pi-" + i, null)) + "\\n");
`;

const entryFor = new Function(`${ENTRY_SOURCE}; return entryFor;`)() as (
  id: string,
  parentId: string | null,
) => object;

function exited(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res();
    else child.once("exit", () => res());
  });
}

describe("crash safety", () => {
  it("survives SIGKILL at random moments: returned appends persist, fragments go to sidecars", async () => {
    const dir = tmp();
    const script = join(dir, "child.mjs");
    writeFileSync(script, CRASH_CHILD);
    const path = join(dir, "s.jsonl");
    createSessionFile(path, [header]);
    const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
    // Per round: how many acknowledged appends to wait for, then a delay before the kill (so
    // the kill is not correlated with the child's stdout write).
    const rng = fc.sample(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 15 })), {
      numRuns: 20,
      seed,
    });
    const acknowledged = new Set<string>();
    for (const [round, [target, delay]] of rng.entries()) {
      const child = spawn(process.execPath, [script, path, String(round), round % 2 === 1 ? "1" : "0"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let seen = 0;
      let killing = false;
      let buffer = "";
      await new Promise<void>((res, rej) => {
        child.stdout?.on("data", (chunk: Buffer) => {
          buffer += chunk.toString();
          const parts = buffer.split("\n");
          buffer = parts.pop() ?? "";
          for (const id of parts) {
            acknowledged.add(id);
            seen++;
          }
          if (seen >= target && !killing) {
            killing = true;
            setTimeout(() => {
              child.kill("SIGKILL");
              res();
            }, delay);
          }
        });
        child.once("exit", (code, signal) => {
          if (signal === "SIGKILL") res();
          else rej(new Error(`child exited early (code ${code}, seed ${seed})`));
        });
      });
      await exited(child);
      // Reopen: repairs the tail (and takes over the dead child's lock).
      SessionWriter.open(path).close();
      const { records, tornTail } = readSessionFileSync(path);
      expect(tornTail, `seed ${seed}`).toBeUndefined();
      expect(records.every((r) => r.kind === "json")).toBe(true);
      const ids = new Set(records.map((r) => (r.kind === "json" ? String(r.value.id) : "")));
      for (const id of acknowledged) expect(ids.has(id), `id ${id} lost (seed ${seed})`).toBe(true);
      expect(ids.size).toBe(records.length);
    }
    // Every sidecar holds the exact beginning of an entry that was being written.
    const sidecars = readdirSync(dir).filter((f) => f.includes(".torn-"));
    const { records } = readSessionFileSync(path);
    const written = new Set(records.map((r) => (r.kind === "json" ? String(r.value.id) : "")));
    // Kills in the chunked rounds land mid-entry most of the time (an entry takes ~15 writes), but
    // not surely on a loaded machine: a torn tail making a sidecar is write.test.ts's, every time.
    const parents: (string | null)[] = [null, ...written];
    for (const name of sidecars) {
      const fragment = readFileSync(join(dir, name), "utf8");
      const id = /^\{"type":"message","id":"(r\d+-\d+)"/.exec(fragment)?.[1];
      if (id === undefined) {
        // Cut before the id was complete: still the exact start of an entry line.
        expect(
          `{"type":"message","id":"r`.startsWith(fragment) ||
            fragment.startsWith(`{"type":"message","id":"r`),
        ).toBe(true);
        continue;
      }
      expect(written.has(id)).toBe(false);
      const lines = parents.map((p) => JSON.stringify(entryFor(id, p)));
      expect(
        lines.some((l) => l.startsWith(fragment) && l.length > fragment.length),
        `${name} (seed ${seed})`,
      ).toBe(true);
    }
  }, 120_000);
});

describe("concurrency", () => {
  it("four processes append 500 entries each: 2,000 valid lines, unique ids, one chain", async () => {
    const dir = tmp();
    const script = join(dir, "append.mjs");
    writeFileSync(script, APPEND_CHILD);
    const path = join(dir, "s.jsonl");
    createSessionFile(path, [header, entryFor("orig-0", null), entryFor("orig-1", "orig-0")]);
    const children = [0, 1, 2, 3].map((k) =>
      spawn(process.execPath, [script, path, String(k), "500"], { stdio: ["ignore", "inherit", "inherit"] }),
    );
    const codes = await Promise.all(
      children.map((c) => new Promise<number | null>((res) => c.once("exit", (code) => res(code)))),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(1 + 2 + 2000);
    const values = lines.map((l) => JSON.parse(l) as { id: string; parentId?: string | null });
    const ids = values.slice(1).map((v) => v.id);
    expect(new Set(ids).size).toBe(2002);
    for (let i = 2; i < values.length; i++) {
      expect(values[i]?.parentId).toBe(values[i - 1]?.id);
    }
    // Still appendable afterwards.
    const w = SessionWriter.open(path);
    expect(w.lineCount).toBe(2003);
    w.close();
  }, 120_000);
});

const HOLD_CHILD = `
import { acquireLock } from ${JSON.stringify(distIndex)};
const lock = acquireLock(process.argv[2]);
process.stdout.write("held\\n");
// Long work (a rewrite of a large file, say): no refresh of the lock meanwhile. Held until the
// test kills it, however slowly the test gets to look.
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
lock.release();
`;

describe("a writer that takes no lock", () => {
  it("appending while we append: each of its lines is handed over once, in order, none misread", async () => {
    const dir = tmp();
    const script = join(dir, "pi.mjs");
    writeFileSync(script, PI_CHILD);
    const path = join(dir, "s.jsonl");
    createSessionFile(path, [header]);
    const count = 3000;
    const pi = spawn(process.execPath, [script, path, String(count)], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const foreign: string[] = [];
    const w = SessionWriter.open(path, {
      onForeignEntries: (records) => {
        for (const r of records) foreign.push(r.kind === "json" ? String(r.value.id) : `raw@${r.offset}`);
      },
    });
    // Our appends race its appends for as long as it runs (at least 500 of ours).
    let ours = 0;
    let done = false;
    pi.once("exit", () => {
      done = true;
    });
    while (!done || ours < 500) {
      for (let k = 0; k < 50; k++) w.append(entryFor(`ours-${ours++}`, null));
      await new Promise((res) => setImmediate(res));
    }
    await exited(pi);
    w.syncForeign();
    w.close();
    const { records } = readSessionFileSync(path);
    expect(records.every((r) => r.kind === "json")).toBe(true);
    const inFile = records.map((r) => (r.kind === "json" ? String(r.value.id) : ""));
    expect(inFile.filter((id) => id.startsWith("pi-"))).toHaveLength(count);
    expect(inFile.filter((id) => id.startsWith("ours-"))).toHaveLength(ours);
    // Handed over: exactly its lines, in file order, each once; never a piece of ours.
    expect(foreign).toEqual(inFile.filter((id) => id.startsWith("pi-")));
    expect(w.size).toBe(readFileSync(path).length);
  });
});

describe("a lock held for long", () => {
  it.runIf(existsSync("/proc/self/stat"))(
    "stays with its live owner past staleMs (its pid and start time tell it apart), up to ten minutes",
    async () => {
      const dir = tmp();
      const script = join(dir, "hold.mjs");
      writeFileSync(script, HOLD_CHILD);
      const path = join(dir, "s.jsonl");
      const child = spawn(process.execPath, [script, path], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((res) => child.stdout?.once("data", () => res()));
      const held = readFileSync(lockPathFor(path), "utf8");
      // Seen from a minute later: older than staleMs (30 s), but the owner is alive.
      const later = (ms: number) => () => Date.now() + ms;
      expect(() => acquireLock(path, { timeoutMs: 100, now: later(60_000) })).toThrow(
        SessionLockTimeoutError,
      );
      expect(readFileSync(lockPathFor(path), "utf8")).toBe(held);
      // Ten minutes on, it is taken over all the same (a leaked lock, not work).
      acquireLock(path, { timeoutMs: 100, now: later(11 * 60_000) }).release();
      child.kill();
      await exited(child);
    },
  );
});
