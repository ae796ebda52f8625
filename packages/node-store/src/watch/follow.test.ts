import {
  appendFileSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionFileNotFoundError } from "../errors.js";
import { type FollowEvent, type FollowOptions, followSessionFile } from "./follow.js";

const dirs: string[] = [];
const stops: AbortController[] = [];
afterEach(() => {
  for (const c of stops.splice(0)) c.abort();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempFile(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-follow-"));
  dirs.push(dir);
  const file = join(dir, "s.jsonl");
  writeFileSync(file, content);
  return file;
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/** A follower run in the background: its events, and the lines a consumer rebuilds from them. */
class Follower {
  readonly events: FollowEvent[] = [];
  /** The ids of the records, as a consumer that resets on `fromStart` sees them. */
  ids: unknown[] = [];
  done = false;
  readonly controller = new AbortController();
  readonly finished: Promise<void>;

  constructor(path: string, options: FollowOptions = {}) {
    stops.push(this.controller);
    this.finished = (async () => {
      for await (const event of followSessionFile(path, {
        pollMs: 50,
        ...options,
        signal: this.controller.signal,
      })) {
        this.events.push(event);
        if (event.type !== "records") continue;
        const ids = event.records.map((r) => (r.kind === "json" ? r.value.id : `raw:${r.text}`));
        this.ids = event.fromStart ? ids : [...this.ids, ...ids];
      }
      this.done = true;
    })();
  }

  /** Polls until `test` holds (the test's timeout bounds it). */
  async until(test: () => boolean): Promise<void> {
    while (!test()) await new Promise((r) => setTimeout(r, 10));
  }

  untilIds(ids: unknown[]): Promise<void> {
    return this.until(() => JSON.stringify(this.ids) === JSON.stringify(ids));
  }
}

describe.each([
  ["fs.watch", false],
  ["polling only", true],
])("followSessionFile (%s)", (_mode, pollOnly) => {
  it("gives the file as it is, then each append", async () => {
    const file = tempFile(line({ id: "a" }) + line({ id: "b" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a", "b"]);
    expect(f.events[0]).toMatchObject({ type: "records", fromStart: true });
    appendFileSync(file, line({ id: "c" }));
    await f.untilIds(["a", "b", "c"]);
    expect(f.events.at(-1)).toMatchObject({ type: "records", fromStart: false });
  });

  it("holds a torn last line until it is completed", async () => {
    const file = tempFile(`${line({ id: "a" })}{"id":"b`);
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a"]);
    appendFileSync(file, `",`);
    // A second append proves the half line was looked at and held, not yielded.
    appendFileSync(file, `"x":1}\n${line({ id: "c" })}`);
    await f.untilIds(["a", "b", "c"]);
    expect(f.ids).not.toContain(expect.stringMatching(/^raw:/));
  });

  it("re-reads a file replaced by rename (an atomic rewrite)", async () => {
    const file = tempFile(line({ id: "a" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a"]);
    const temp = `${file}.tmp`;
    writeFileSync(temp, line({ id: "x" }) + line({ id: "y" }));
    renameSync(temp, file);
    await f.untilIds(["x", "y"]);
    expect(f.events).toContainEqual({ type: "reset", reason: "replaced" });
    appendFileSync(file, line({ id: "z" }));
    await f.untilIds(["x", "y", "z"]);
  });

  it("re-reads a file truncated and rewritten in place", async () => {
    const file = tempFile(line({ id: "a" }) + line({ id: "b" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a", "b"]);
    truncateSync(file, 0);
    writeFileSync(file, line({ id: "c" }));
    await f.untilIds(["c"]);
    expect(f.events.some((e) => e.type === "reset")).toBe(true);
  });

  it("notices a rewrite in place that leaves the file longer", async () => {
    const file = tempFile(line({ id: "a" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a"]);
    writeFileSync(file, line({ id: "q" }) + line({ id: "r" }));
    await f.untilIds(["q", "r"]);
    expect(f.events.some((e) => e.type === "reset")).toBe(true);
  });

  it("notices a same-size rewrite in place whose modification time was put back", async () => {
    // The first line is longer than the tail the read compares, so only the times can tell.
    const pad = "p".repeat(200);
    const file = tempFile(line({ id: "a", pad }) + line({ id: "b" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a", "b"]);
    const { atime, mtime } = statSync(file);
    writeFileSync(file, line({ id: "x", pad }) + line({ id: "b" }));
    utimesSync(file, atime, mtime);
    await f.untilIds(["x", "b"]);
    expect(f.events).toContainEqual({ type: "reset", reason: "rewritten" });
  });

  it("says when the file is removed, and follows it again when it comes back", async () => {
    const file = tempFile(line({ id: "a" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a"]);
    rmSync(file);
    await f.until(() => f.events.some((e) => e.type === "removed"));
    writeFileSync(file, line({ id: "n" }));
    await f.untilIds(["n"]);
    expect(f.events.at(-2)).toEqual({ type: "reset", reason: "replaced" });
  });

  it("ends when the signal aborts", async () => {
    const file = tempFile(line({ id: "a" }));
    const f = new Follower(file, { pollOnly });
    await f.untilIds(["a"]);
    f.controller.abort();
    await f.finished;
    expect(f.done).toBe(true);
  });

  it("rebuilds the file's lines after any sequence of appends, torn lines and rewrites (model)", async () => {
    const file = tempFile("");
    const f = new Follower(file, { pollOnly });
    // The model: the lines of the file, each a whole record.
    let lines: string[] = [];
    let next = 0;
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const fresh = () => JSON.stringify({ id: `e${next++}` });
    const pause = () => new Promise((r) => setTimeout(r, random(30)));
    for (let step = 0; step < 40; step++) {
      const op = random(5);
      if (op <= 1) {
        lines.push(fresh());
        appendFileSync(file, `${lines.at(-1)}\n`);
      } else if (op === 2) {
        // A line written in two parts, maybe read in between.
        const text = fresh();
        const cut = 1 + random(text.length - 1);
        appendFileSync(file, text.slice(0, cut));
        await pause();
        appendFileSync(file, `${text.slice(cut)}\n`);
        lines.push(text);
      } else if (op === 3) {
        lines = [fresh(), fresh()];
        writeFileSync(`${file}.tmp`, `${lines.join("\n")}\n`);
        renameSync(`${file}.tmp`, file);
      } else {
        lines = [fresh()];
        writeFileSync(file, `${lines.join("\n")}\n`);
      }
      if (random(3) === 0) await pause();
    }
    await f.untilIds(lines.map((l) => JSON.parse(l).id));
  });
});

describe("followSessionFile", () => {
  it("refuses a missing file", async () => {
    const file = join(tempFile(""), "..", "missing.jsonl");
    const iterator = followSessionFile(file);
    await expect(iterator.next()).rejects.toBeInstanceOf(SessionFileNotFoundError);
  });
});
