/**
 * The floor of the huge open row (issue 18: open + `buildSessionContext` of a compacted 1 GB
 * session within 3× one sequential read). What any open that gives pi's answer must do at
 * least: read every byte and prove every line a JSON object (a malformed line anywhere on the
 * path changes the context), here with the open's own WebAssembly scanner and nothing else: no
 * index, no context, no entry kept. Measured on one thread, and on two (the file split at a
 * line; a worker thread scans the second part), and, below any JSON, finding each line only.
 *
 * Used by `worker-sdk.ts` (the `open-floor` op); the same module is the worker thread's script.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { lineScanner } from "@pi-session/node-store/internal";

/** The open's read size (`CHUNK` of node-store's `read/open-scan.ts`). */
const CHUNK = 4 * 1024 * 1024;

export type FloorWhat = "scan" | "lines";

/**
 * Reads the lines of `[from, to)` (from is a line's start, to the end of the file or of a line)
 * into the scanner's memory, a chunk at a time, and scans them (`scan`) or finds each "\n"
 * (`lines`). Returns the lines counted.
 */
export function scanRange(file: string, from: number, to: number, what: FloorWhat): number {
  const scanner = lineScanner();
  if (!scanner) throw new Error("no WebAssembly line scanner here");
  const input = scanner.input;
  const fd = openSync(file, "r");
  let carry = 0;
  let position = from;
  let lines = 0;
  const onRecords = (a: number, b: number) => {
    lines += (b - a) / 8; // eight words per line
  };
  try {
    while (position < to) {
      const mem = scanner.ensure(carry + CHUNK);
      const n = readSync(fd, mem, input + carry, Math.min(CHUNK, to - position), position);
      if (n === 0) break;
      position += n;
      const total = input + carry + n;
      const end = mem.lastIndexOf(10, total - 1) + 1;
      if (end <= input) throw new Error(`a line longer than ${CHUNK} bytes at ${position}`);
      if (what === "scan") scanner.scanEntries(input, end, onRecords);
      else for (let p = input; p < end; p = mem.indexOf(10, p) + 1) lines++;
      carry = total - end;
      mem.copyWithin(input, end, total);
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

/** The first line start at or after `at`. */
function lineStartAfter(file: string, at: number): number {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let p = at; ; p += buf.length) {
      const n = readSync(fd, buf, 0, buf.length, p);
      if (n === 0) return p;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) return p + nl + 1;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The floor on `threads` threads (1 or 2): the file's lines scanned, the second part by a
 * worker thread started here (its start-up is part of the time, as it would be in an open).
 */
export async function floorScan(
  file: string,
  size: number,
  threads: 1 | 2,
  what: FloorWhat,
): Promise<number> {
  if (threads === 1) return scanRange(file, 0, size, what);
  const cut = lineStartAfter(file, Math.floor(size / 2));
  const other = new Promise<number>((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: { file, from: cut, to: size, what } });
    w.once("message", (n: number) => resolve(n));
    w.once("error", reject);
  });
  const mine = scanRange(file, 0, cut, what);
  return mine + (await other);
}

if (!isMainThread && parentPort) {
  const d = workerData as { file: string; from: number; to: number; what: FloorWhat };
  parentPort.postMessage(scanRange(d.file, d.from, d.to, d.what));
}
