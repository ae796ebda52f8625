/**
 * Temp files of rewrites and creates: named after the process that made them (pid, start time,
 * host), so a later writer can tell when that process is gone and remove what it left. Every
 * writer calls {@link removeDeadTempFiles}'s core on the directory it writes in.
 */
import * as nodeFs from "node:fs";
import { hostname as osHostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { type FsOption, type WriterFs, fsWith } from "../fs/writer-fs.js";
import { ownStartTime, processIsGone } from "../lock/process-identity.js";

/** A short tag of this host's name (temp names say whose they are). */
let hostTagValue: string | undefined;
function hostTag(): string {
  if (hostTagValue === undefined) {
    const name = osHostname();
    let h = 0x811c9dc5;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    hostTagValue = (h >>> 0).toString(16).padStart(8, "0");
  }
  return hostTagValue;
}

/**
 * A temp file beside `file`: `.<name>.tmp-<pid>-<start>-<host>-<random>`. The pid, the
 * process start time (Linux; `x` where it cannot be read) and a tag of the host name let a
 * later writer tell that the process that made it is gone (see {@link removeDeadTempFiles}).
 */
export function tempPathFor(file: string): string {
  const rand = Math.random().toString(36).slice(2, 10) || "0";
  const start = ownStartTime() ?? "x";
  return join(dirname(file), `.${basename(file)}.tmp-${process.pid}-${start}-${hostTag()}-${rand}`);
}

const TEMP_NAME = /^\..+\.tmp-(\d+)-(\d+|x)-([0-9a-f]{8})-[0-9a-z]+$/;
/** The temp names of earlier versions: `.<name>.jsonl.tmp-<pid>-<random>` (no start, no host). */
const LEGACY_TEMP_NAME = /^\..+\.jsonl\.tmp-(\d+)-[0-9a-z]{1,8}$/;
/** A legacy temp file is also left alone until this old (no live writer holds a lock that long). */
const LEGACY_TEMP_MIN_AGE_MS = 10 * 60_000;

/**
 * Removes from `dir` the temp files (of rewrites and creates) whose writer is provably gone: made
 * on this host by a pid that no longer exists or now has another start time; never a live or
 * another host's writer's. Older temp names (no start time, no host): only when their pid is gone
 * and they are over ten minutes old. Best effort. Returns the paths removed (`dryRun`: would be).
 * Every writer here calls it on the directory of the file it writes.
 */
export function removeDeadTempFiles(dir: string, opts: RemoveDeadTempFilesOptions = {}): string[] {
  return removeDeadTemps(dir, fsWith(opts.fs), opts.dryRun === true);
}

export interface RemoveDeadTempFilesOptions extends FsOption {
  /** Only list what would be removed. */
  dryRun?: boolean;
}

export function removeDeadTemps(dir: string, fs: WriterFs, dryRun = false): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = nodeFs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(".") || !name.includes(".tmp-")) continue;
    const path = join(dir, name);
    const current = TEMP_NAME.exec(name);
    let gone = false;
    if (current) {
      const [, pid, start, host] = current;
      gone = host === hostTag() && processIsGone(Number(pid), start === "x" ? undefined : start);
    } else {
      const legacy = LEGACY_TEMP_NAME.exec(name);
      if (!legacy) continue;
      gone = processIsGone(Number(legacy[1]), undefined);
      if (gone) {
        try {
          gone = Date.now() - fs.statSync(path).mtimeMs > LEGACY_TEMP_MIN_AGE_MS;
        } catch {
          gone = false;
        }
      }
    }
    if (!gone) continue;
    try {
      // A regular file only (never a directory or a link someone put there under that name).
      if (!nodeFs.lstatSync(path).isFile()) continue;
      if (!dryRun) fs.unlinkSync(path);
      removed.push(path);
    } catch {
      // Removed by another writer meanwhile, or not ours to remove.
    }
  }
  return removed;
}
