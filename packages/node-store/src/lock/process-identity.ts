/**
 * Telling whether a process is gone: a pid and the start time the kernel gives it (Linux,
 * `/proc/<pid>/stat`), so a later process that got the same pid is not taken for it. Used to
 * judge locks and the temp files of writers.
 */
import { readFileSync } from "node:fs";

/** Start time of a process (Linux), or undefined where it cannot be read. */
export function startTimeOf(pid: number | "self"): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

let ownStart: { value: string | undefined } | undefined;
/** This process's start time (Linux), read once; undefined where it cannot be read. */
export function ownStartTime(): string | undefined {
  ownStart ??= { value: startTimeOf("self") };
  return ownStart.value;
}

/**
 * Whether the process `pid` that started at `start` (as {@link ownStartTime} gives it; undefined
 * when unknown) is provably gone from this host: no process has that pid, or the one that has it
 * started at another time. False whenever it cannot be told (no start time to compare).
 */
export function processIsGone(pid: number, start: string | undefined): boolean {
  if (pid === process.pid)
    return start !== undefined && ownStartTime() !== undefined && start !== ownStartTime();
  if (pidIsDead(pid)) return true;
  if (start === undefined) return false;
  const now = startTimeOf(pid);
  return now !== undefined && now !== start;
}

export function pidIsDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === "ESRCH";
  }
}
