/**
 * Model-based test of the writers (`fc.commands`): create, append, foreign appends, torn tails
 * written directly to the file, rewrite and reopen, checked after every step against an
 * in-memory model of the file's lines and of the sidecars. Invariant: the file is always the
 * model's lines (plus the torn bytes not yet repaired), and no fragment byte is ever lost.
 */
import { appendFileSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fcOptions, tempDir } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSessionFileSync } from "../read/session-file.js";
import { SessionWriter } from "./appender.js";
import { createSessionFile } from "./create.js";

interface Model {
  /** Lines of the file, each with its `\n`. */
  lines: string[];
  /** Bytes appended without `\n`, not yet repaired. */
  torn: string;
  /** Fragments that must be in sidecars. */
  sidecars: string[];
  /** Foreign records the writer has not absorbed yet. */
  foreign: number;
  nextId: number;
}

interface Real {
  dir: string;
  path: string;
  writer: SessionWriter;
  clock: number;
}

const header = { type: "session", version: 3, id: "model", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/m" };
const line = (v: unknown) => `${JSON.stringify(v)}\n`;
const entry = (n: number, text: string) => ({
  type: "message",
  id: `e${n}`,
  parentId: n > 0 ? `e${n - 1}` : null,
  timestamp: "2025-01-01T00:00:00.000Z",
  message: { role: "user", content: text, timestamp: n },
});

function isWholeObject(s: string): boolean {
  if (s.trim() === "") return true;
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** What the writer does to a pending torn tail before its next operation. */
function repairModel(m: Model, countsAsForeign: boolean): void {
  if (m.torn === "") return;
  if (isWholeObject(m.torn)) {
    m.lines.push(`${m.torn}\n`);
    if (countsAsForeign && m.torn.trim() !== "") m.foreign++;
  } else {
    m.sidecars.push(m.torn);
  }
  m.torn = "";
}

function check(m: Model, r: Real): void {
  expect(readFileSync(r.path, "utf8")).toBe(m.lines.join("") + m.torn);
  const sidecars = readdirSync(r.dir)
    .filter((f) => f.includes(".torn-"))
    .map((f) => readFileSync(join(r.dir, f), "utf8"))
    .sort();
  expect(sidecars).toEqual([...m.sidecars].sort());
  expect(readdirSync(r.dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
}

const arbText = fc.string({ maxLength: 12 }).map((s) => s.replace(/\n/g, " "));

class AppendCmd implements fc.Command<Model, Real> {
  constructor(readonly texts: string[]) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const hadTorn = m.torn !== "";
    repairModel(m, true);
    const expectedForeign = m.foreign;
    const entries = this.texts.map((t) => entry(m.nextId++, t));
    const result = r.writer.append(entries);
    expect(result.foreign).toHaveLength(expectedForeign);
    expect(result.repair !== undefined).toBe(hadTorn);
    for (const e of entries) m.lines.push(line(e));
    m.foreign = 0;
    check(m, r);
  }
  toString = () => `append(${this.texts.length})`;
}

class ForeignCmd implements fc.Command<Model, Real> {
  constructor(
    readonly text: string,
    readonly garbage: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.torn === "";
  run(m: Model, r: Real): void {
    const l = this.garbage ? `garbage ${this.text}\n` : line(entry(m.nextId++, this.text));
    appendFileSync(r.path, l);
    m.lines.push(l);
    m.foreign++;
    check(m, r);
  }
  toString = () => `foreign(${this.garbage ? "garbage" : "entry"})`;
}

class TornCmd implements fc.Command<Model, Real> {
  constructor(
    readonly text: string,
    readonly whole: boolean,
    readonly cut: number,
  ) {}
  check = (m: Readonly<Model>) => m.torn === "";
  run(m: Model, r: Real): void {
    const full = JSON.stringify(entry(m.nextId++, this.text));
    const bytes = this.whole ? full : full.slice(0, Math.max(1, Math.min(this.cut, full.length - 1)));
    appendFileSync(r.path, bytes);
    m.torn = bytes;
    check(m, r);
  }
  toString = () => `torn(${this.whole ? "whole" : `cut ${this.cut}`})`;
}

class RewriteCmd implements fc.Command<Model, Real> {
  constructor(readonly text: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    r.writer.syncForeign();
    repairModel(m, true);
    m.foreign = 0;
    const { records } = readSessionFileSync(r.path);
    const added = entry(m.nextId++, this.text);
    r.writer.rewrite([...records, added]);
    m.lines.push(line(added));
    check(m, r);
  }
  toString = () => "rewrite";
}

class ReopenCmd implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    r.writer.close();
    r.clock++;
    r.writer = SessionWriter.open(r.path, { now: () => new Date(r.clock * 1000) });
    repairModel(m, false);
    m.foreign = 0;
    check(m, r);
  }
  toString = () => "reopen";
}

describe("writer model", () => {
  it("matches the in-memory model under any sequence of commands", () => {
    const commands = [
      fc.array(arbText, { minLength: 1, maxLength: 3 }).map((t) => new AppendCmd(t)),
      fc.tuple(arbText, fc.boolean()).map(([t, g]) => new ForeignCmd(t, g)),
      fc
        .tuple(arbText, fc.boolean(), fc.integer({ min: 1, max: 80 }))
        .map(([t, w, c]) => new TornCmd(t, w, c)),
      arbText.map((t) => new RewriteCmd(t)),
      fc.constant(new ReopenCmd()),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 25 }), (cmds) => {
        const tmp = tempDir("ns-model-");
        try {
          const path = join(tmp.path, "s.jsonl");
          createSessionFile(path, [header]);
          const clock = { t: 0 };
          const writer = SessionWriter.open(path, { now: () => new Date(clock.t * 1000) });
          const real: Real = { dir: tmp.path, path, writer, clock: 0 };
          const model: Model = { lines: [line(header)], torn: "", sidecars: [], foreign: 0, nextId: 0 };
          fc.modelRun(() => ({ model, real }), cmds);
          real.writer.close();
        } finally {
          tmp.cleanup();
        }
      }),
      fcOptions(),
    );
  }, 120_000);
});
