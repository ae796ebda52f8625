/**
 * The names of the files kept beside a session: `<file>.torn-<time>[-N]` for a torn last line
 * moved aside, `<file>.bak-<time>[-N]` for a backup of the previous bytes (a rewrite's, the
 * CLI's `name` and `label`), `<file>.removed-<time>[-N]` for bytes the CLI's `repair` cut, and
 * `<file>.v<N>[.<n>].bak` for the SDK's backup of a file it migrated. Use these to name a new
 * companion, and {@link isCompanionSuffix} to recognise one (the removal of a session takes
 * its companions with it).
 */
import { existsSync } from "node:fs";
import { errorCode } from "../errors.js";
import type { WriterFs } from "../fs/writer-fs.js";

/** The kinds of timestamped companions. */
const COMPANION_KINDS = ["bak", "torn", "removed"] as const;
export type CompanionKind = (typeof COMPANION_KINDS)[number];

/** `<time>` in a companion's name: an ISO time with `:` and `.` as `-`. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, "-");
}

/**
 * The names a new companion of `path` may take, in order: `<path>.<kind>-<time>`, then with
 * `-1`, `-2`, ... for a name already taken (a second one in the same millisecond). Take the
 * first that can be created exclusively.
 */
export function* companionPaths(
  path: string,
  kind: CompanionKind,
  now: Date = new Date(),
): Generator<string> {
  const base = `${path}.${kind}-${fileTimestamp(now)}`;
  yield base;
  for (let n = 1; ; n++) yield `${base}-${n}`;
}

/** A `.torn-<time>[-N]` name beside `path` that does not exist yet. */
export function sidecarPathFor(fs: WriterFs, path: string, now: Date): string {
  for (const candidate of companionPaths(path, "torn", now)) {
    try {
      fs.statSync(candidate);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return candidate;
      throw error;
    }
  }
  throw new Error("unreachable: companionPaths never ends");
}

/**
 * A name for the backup of a file migrated from version `fromVersion` that does not exist yet:
 * `<path>.v<N>.bak`, else `<path>.v<N>.1.bak`, `.2.bak`, ...
 */
export function migrationBackupPath(path: string, fromVersion: number): string {
  let candidate = `${path}.v${fromVersion}.bak`;
  for (let n = 1; existsSync(candidate); n++) candidate = `${path}.v${fromVersion}.${n}.bak`;
  return candidate;
}

/** `<time>` as {@link fileTimestamp} writes it. */
const STAMP = String.raw`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z`;
/**
 * What follows the session file name in the name of one of its companions:
 * `.bak-<time>[-N]` (backup of a rewrite: node-store's `rewriteSessionFile`, the CLI's `name`
 * and `label`), `.torn-<time>[-N]` (a torn last line moved aside by the appender or
 * `repairTornTail`), `.removed-<time>[-N]` (bytes the CLI's `repair` cut), `.v<N>[.<n>].bak`
 * (the SDK's backup of a file it migrated).
 */
const COMPANION_SUFFIX = new RegExp(
  String.raw`^\.(?:(?:${COMPANION_KINDS.join("|")})-${STAMP}(?:-\d+)?|v\d+(?:\.\d+)?\.bak)$`,
);

/** Whether `suffix` (what follows a session file's name) names one of its companions. */
export function isCompanionSuffix(suffix: string): boolean {
  return COMPANION_SUFFIX.test(suffix);
}
