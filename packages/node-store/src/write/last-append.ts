/**
 * Where an appender's last lines landed. Its writes go to the end of the file (O_APPEND); a
 * writer that takes no lock (pi) may have appended between its check and its writes, so its
 * lines need not be where it wrote them. On finding the file grown, they are compared with the
 * bytes from where they started (decision 007).
 */
import { readFully, runReaderSync } from "../fs/positional-reads.js";
import type { WriterFs } from "../fs/writer-fs.js";

/** Bytes read at a time when looking for where the lines landed. */
const PLACE_CHUNK = 1 << 20;

/**
 * The offsets in `[from, end)` of `lines` (each with its `\n`, in the order written), or
 * undefined when they are there in a row at `from` (the other writer appended after them: the
 * foreign bytes start after them). Otherwise the other writer's lines came before or among
 * them: the offsets of those found, in order (a line split by another write is not found, and
 * its pieces are read as foreign), so everything else there is foreign.
 */
export function findOurLines(
  fs: WriterFs,
  fd: number,
  lines: readonly Buffer[],
  from: number,
  end: number,
): Set<number> | undefined {
  const readAt = (buf: Buffer, length: number, position: number): number =>
    runReaderSync(readFully(buf, length, position), fd, fs.readSync);
  // The usual case (the other writer appended after us): our bytes, in a row, at `from`. Only
  // they are read: what follows may be large, and is read as records by the caller.
  const oursLength = lines.reduce((n, l) => n + l.length, 0);
  if (end - from >= oursLength) {
    const head = Buffer.allocUnsafe(oursLength);
    if (readAt(head, oursLength, from) === oursLength && head.equals(Buffer.concat(lines, oursLength)))
      return undefined;
  }
  // Our lines, in order, line by line from `from`, in chunks (memory: a chunk plus the longest
  // line), stopping once all are found: the rest is foreign.
  const ours = new Set<number>();
  const chunk = Buffer.allocUnsafe(PLACE_CHUNK);
  let carry: Buffer = Buffer.alloc(0);
  let carryAt = from;
  let at = from;
  let j = 0;
  while (j < lines.length && at < end) {
    const n = readAt(chunk, Math.min(PLACE_CHUNK, end - at), at);
    if (n === 0) break;
    at += n;
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let start = 0;
    for (let nl = buf.indexOf(10); nl >= 0 && j < lines.length; nl = buf.indexOf(10, start)) {
      const line = lines[j] as Buffer;
      if (nl + 1 - start === line.length && buf.subarray(start, nl + 1).equals(line)) {
        ours.add(carryAt + start);
        j++;
      }
      start = nl + 1;
    }
    // The chunk buffer is reused: keep a copy of the unfinished line.
    carry = Buffer.from(buf.subarray(start));
    carryAt += start;
  }
  return ours;
}
