/**
 * The owed rewrite of a `SessionFile` racing a writer that takes no lock (pi): lines appended
 * while the new file is written are never dropped, and are taken in once.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionRecord } from "@pi-session/format";
import { readSessionFileSync } from "@pi-session/node-store";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SessionFile } from "./session-file.js";

const dirs = tempDirs("pi-sdk-file-");
afterEach(dirs.cleanup);

const line = (value: object) => `${JSON.stringify(value)}\n`;
const header = { type: "session", version: 3, id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };
const entry = (id: string, parentId: string | null) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: id, timestamp: 1 },
});

/** A file opened with a rewrite owed (as a torn fragment or a migration leaves it). */
function opened(): { path: string; file: SessionFile } {
  const path = join(dirs.make(), "s.jsonl");
  writeFileSync(path, line(header) + line(entry("aaaaaaaa", null)));
  const contents = readSessionFileSync(path);
  const file = new SessionFile(path);
  file.adopt(contents, { records: contents.records });
  return { path, file };
}

const ids = (records: SessionRecord[]) =>
  records.map((r) => (r.kind === "json" ? r.value.id : `raw:${r.text}`));

describe("SessionFile rewrite against a writer that takes no lock", () => {
  it("lines appended after the foreign read are kept: the rewrite is tried again and takes them in once", () => {
    const { path, file } = opened();
    const seen: unknown[][] = [];
    file.append(
      entry("cccccccc", "aaaaaaaa"),
      (records) => {
        seen.push(ids(records));
        // pi appends right after our read of the file, before the new file replaces it.
        if (seen.length === 1) appendFileSync(path, line(entry("bbbbbbbb", "aaaaaaaa")));
      },
      () => [],
    );
    expect(seen).toEqual([[], ["bbbbbbbb"]]);
    expect(ids(readSessionFileSync(path).records)).toEqual(["s1", "aaaaaaaa", "bbbbbbbb", "cccccccc"]);
    expect(readdirSync(join(path, "..")).sort()).toEqual(["s.jsonl"]);
  });

  it("a line half written when read is taken in whole once complete, never as its fragment", () => {
    const { path, file } = opened();
    const theirs = line(entry("bbbbbbbb", "aaaaaaaa"));
    appendFileSync(path, theirs.slice(0, 30));
    const seen: unknown[][] = [];
    file.append(
      entry("cccccccc", "aaaaaaaa"),
      (records) => {
        seen.push(ids(records));
        if (seen.length === 1) appendFileSync(path, theirs.slice(30));
      },
      () => [],
    );
    expect(seen).toEqual([[], ["bbbbbbbb"]]);
    expect(readFileSync(path, "utf8")).toBe(
      line(header) + line(entry("aaaaaaaa", null)) + theirs + line(entry("cccccccc", "aaaaaaaa")),
    );
    // The first try had moved the fragment aside; it grew, so that copy went again.
    expect(readdirSync(join(path, "..")).sort()).toEqual(["s.jsonl"]);
  });

  it("a fragment still torn at the rewrite goes to a .torn-* sidecar, not back into the file", () => {
    const { path, file } = opened();
    const fragment = line(entry("bbbbbbbb", "aaaaaaaa")).slice(0, 30);
    appendFileSync(path, fragment);
    file.append(
      entry("cccccccc", "aaaaaaaa"),
      () => {},
      () => [],
    );
    expect(readFileSync(path, "utf8")).toBe(
      line(header) + line(entry("aaaaaaaa", null)) + line(entry("cccccccc", "aaaaaaaa")),
    );
    const sidecars = readdirSync(join(path, "..")).filter((f) => f.startsWith("s.jsonl.torn-"));
    expect(sidecars.map((f) => readFileSync(join(path, "..", f), "utf8"))).toEqual([fragment]);
  });

  it("a file that keeps growing is refused after a few tries; nothing is lost and nothing taken in twice", () => {
    const { path, file } = opened();
    const seen: unknown[][] = [];
    let n = 0;
    const grow = () => appendFileSync(path, line(entry(`p${n++}`.padEnd(8, "0"), "aaaaaaaa")));
    expect(() =>
      file.append(
        entry("cccccccc", "aaaaaaaa"),
        (records) => {
          seen.push(ids(records));
          grow();
        },
        () => [],
      ),
    ).toThrow(/appended/);
    expect(seen).toEqual([[], ["p0000000"], ["p1000000"]]);
    const kept = ["s1", "aaaaaaaa", "p0000000", "p1000000", "p2000000"];
    expect(ids(readSessionFileSync(path).records)).toEqual(kept);
    // The next append takes in only what it has not seen, and is written.
    seen.length = 0;
    file.append(
      entry("dddddddd", "aaaaaaaa"),
      (records) => seen.push(ids(records)),
      () => [],
    );
    expect(seen).toEqual([["p2000000"]]);
    expect(ids(readSessionFileSync(path).records)).toEqual([...kept, "dddddddd"]);
  });
});
