/**
 * `readByteRanges`: the bytes of a session file in given ranges, from one open of the file.
 * Use it to take a file apart by byte offsets found by an earlier read (a repair keeps some
 * stretches and cuts others), where the file must not have shrunk meanwhile.
 */
import { closeSync, readSync } from "node:fs";
import { SessionFileChangedError } from "../errors.js";
import { openRegularFileSync } from "../fs/regular-files.js";

/** A byte range: `start` included, `end` excluded. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The bytes of each range, in order. Only a regular file is read (a FIFO that took its place
 * would block the read); a file shorter than a range throws `SessionFileChangedError`
 * (`truncated`).
 */
export function readByteRanges(path: string, ranges: readonly ByteRange[]): Buffer[] {
  const { fd } = openRegularFileSync(path);
  try {
    return ranges.map(({ start, end }) => {
      const buf = Buffer.allocUnsafe(Math.max(0, end - start));
      for (let got = 0; got < buf.length; ) {
        const n = readSync(fd, buf, got, buf.length - got, start + got);
        if (n === 0) throw new SessionFileChangedError(path, "truncated");
        got += n;
      }
      return buf;
    });
  } finally {
    closeSync(fd);
  }
}
