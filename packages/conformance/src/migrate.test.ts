/**
 * Differential test of `@pi-session/migrate` against pi 1.6.0's `migrateSessionEntries`
 * (which mutates in place) on arbitrary v1 and v2 sessions: the results are identical once
 * the ids are renamed by position (pi mints random ids; ours are deterministic).
 */
import { parseSessionText, splitSession } from "@pi-session/format";
import { migrateEntries, migrateRecords } from "@pi-session/migrate";
import { arbSessionV1, arbSessionV2, arbSessionV3, fcOptions, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdCanon, jsonCopy } from "./helpers.js";
import { type Json, pi } from "./pi.js";

const TIMEOUT = 60_000;

function canon(all: Json[]): Json[] {
  return new IdCanon().register(all).apply(all);
}

/** pi on a copy of the file's lines (header included). */
function piMigrated(lines: Json[]): Json[] {
  const copy = jsonCopy(lines);
  pi.migrateSessionEntries(copy);
  return copy;
}

function check(session: { header: unknown; entries: readonly unknown[] }): void {
  const lines = jsonCopy([session.header, ...session.entries]) as Json[];
  const expected = canon(piMigrated(lines));

  // Plain objects, copying and in place.
  const copied = migrateEntries(lines);
  expect(canon(copied.entries)).toStrictEqual(expected);
  // Same bytes once written: key order too.
  expect(canon(copied.entries).map((e) => JSON.stringify(e))).toEqual(expected.map((e) => JSON.stringify(e)));
  const inPlace = jsonCopy(lines);
  migrateEntries(inPlace, { inPlace: true });
  expect(canon(inPlace)).toStrictEqual(expected);
  expect(canon(lines)).toStrictEqual(canon(jsonCopy([session.header, ...session.entries]) as Json[])); // input untouched

  // Through the line codec, as a file: pi parses the same text.
  const text = toJsonl(session);
  const piFromText = canon(piMigrated(pi.parseSessionEntries(text)));
  const { records } = migrateRecords(parseSessionText(text).records);
  const view = splitSession(records);
  const fromRecords = [view.header?.value, ...view.entries.map((r) => r.value)] as Json[];
  expect(canon(fromRecords)).toStrictEqual(piFromText);
}

describe("migrate vs pi 1.6.0 migrateSessionEntries", () => {
  it(
    "v1 sessions",
    () => {
      fc.assert(fc.property(arbSessionV1({ maxEntries: 30 }), check), fcOptions());
    },
    TIMEOUT,
  );

  it(
    "v2 sessions (with faults)",
    () => {
      fc.assert(fc.property(arbSessionV2({ maxEntries: 30, faults: true }), check), fcOptions());
    },
    TIMEOUT,
  );

  it(
    "v3 sessions are left alone by both",
    () => {
      fc.assert(fc.property(arbSessionV3({ maxEntries: 20 }), check), fcOptions());
    },
    TIMEOUT,
  );
});
