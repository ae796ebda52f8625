/**
 * Real files: the two upstream pi v1 fixtures and the example sessions of this repository.
 * pi's pipeline (`parseSessionEntries` -> `migrateSessionEntries` -> context functions) and
 * ours (`@pi-session/format` codec -> `@pi-session/migrate` -> `@pi-session/context`) must
 * give the same context. Migrated ids are random in pi, so entries are compared after
 * renaming ids by position; context messages carry no ids and are compared as they are.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import * as ours from "@pi-session/context";
import { type AnyEntry, parseSessionBytes, splitSession } from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import { examplesDir, upstreamFixture, upstreamFixtureNames } from "@pi-session/testkit";
import { describe, expect, it } from "vitest";
import { IdCanon } from "./helpers.js";
import { type Json, pi } from "./pi.js";

const TIMEOUT = 60_000;

/** pi 1.6.0 reading a file: parse, migrate in place, drop the header. */
function piEntries(text: string): { header: Json | undefined; entries: Json[] } {
  const all = pi.parseSessionEntries(text);
  pi.migrateSessionEntries(all);
  return { header: all.find((e) => e.type === "session"), entries: all.filter((e) => e.type !== "session") };
}

/** Ours: codec, migration, session view. */
function ourEntries(bytes: Uint8Array): { header: Json | undefined; entries: Json[] } {
  const { records } = migrateRecords(parseSessionBytes(bytes).records);
  const view = splitSession(records);
  return { header: view.header?.value as Json | undefined, entries: view.entries.map((r) => r.value) };
}

function exampleFiles(): string[] {
  const root = examplesDir();
  const out: string[] = [];
  for (const dir of readdirSync(root)) {
    for (const name of readdirSync(join(root, dir)))
      if (name.endsWith(".jsonl")) out.push(join(root, dir, name));
  }
  return out.sort();
}

/** Compares both pipelines on one file, at the last entry and at `leafSamples` other leaves. */
function compareFile(path: string, leafStep: number): void {
  const bytes = readFileSync(path);
  const theirs = piEntries(bytes.toString("utf8"));
  const mine = ourEntries(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  expect(mine.header).toStrictEqual(theirs.header);
  expect(mine.entries.length).toBe(theirs.entries.length);

  const piCanon = new IdCanon().register(theirs.entries);
  const ourCanon = new IdCanon().register(mine.entries);
  expect(ourCanon.apply(mine.entries)).toStrictEqual(piCanon.apply(theirs.entries));

  const e = mine.entries as unknown as AnyEntry[];
  expect(ours.buildSessionContext(e)).toStrictEqual(pi.buildSessionContext(theirs.entries));
  expect(ourCanon.apply(ours.buildContextEntries(e))).toStrictEqual(
    piCanon.apply(pi.buildContextEntries(theirs.entries)),
  );
  for (let i = 0; i < theirs.entries.length; i += leafStep) {
    const piLeaf = theirs.entries[i]?.id as string;
    const ourLeaf = mine.entries[i]?.id as string;
    expect(ours.buildSessionContext(e, ourLeaf), `leaf #${i}`).toStrictEqual(
      pi.buildSessionContext(theirs.entries, piLeaf),
    );
    expect(ourCanon.apply(ours.buildSessionProjection(e, ourLeaf)), `leaf #${i}`).toStrictEqual(
      piCanon.apply(pi.buildSessionProjection(theirs.entries, piLeaf)),
    );
  }
}

describe("real files: pi 1.6.0 and our pipeline rebuild the same context", () => {
  for (const name of upstreamFixtureNames) {
    it(`upstream fixture ${name} (v1)`, () => compareFile(upstreamFixture(name), 97), TIMEOUT);
  }
  for (const path of exampleFiles()) {
    it(`example ${path.slice(examplesDir().length + 1)}`, () => compareFile(path, 1), TIMEOUT);
  }
});
