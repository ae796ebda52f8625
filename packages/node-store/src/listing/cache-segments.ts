/**
 * The text segments of the listing cache: files `list-<key>-<id>.text`, each written once
 * (exclusive create, never modified) and starting with a line naming its id, holding the
 * `allMessagesText` values the index points at. A listing writes new texts to a segment while
 * it reads files; a warm listing reads a text back only when a caller first touches it.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { readFully, runReaderSync } from "../fs/positional-reads.js";
import { READ_FLAGS } from "../fs/regular-files.js";
import { isWellFormed } from "./cache-index-layout.js";
import { segmentFileFor } from "./cache-dir.js";

/** Where a cached `allMessagesText` is. */
export interface TextRef {
  /** The segment's id. */
  segment: string;
  /** Byte offset in the segment. */
  offset: number;
  /** Byte length. */
  length: number;
  /** The bytes are UTF-16LE (a text with a lone surrogate, which UTF-8 cannot hold), else UTF-8. */
  utf16: boolean;
}

function segmentHeader(id: string): Buffer {
  return Buffer.from(`pi-session-text ${id}\n`, "latin1");
}

/**
 * Reads one text back from its segment; `undefined` when the segment is missing, not the one
 * the index names, or too short (the caller then recomputes the text from the session file).
 */
export function readCachedText(cacheDir: string, listedDir: string, ref: TextRef): string | undefined {
  const { segment: id, offset, length } = ref;
  const header = segmentHeader(id);
  if (offset < header.length) return undefined;
  let fd: number;
  try {
    // Non-blocking: a read of a FIFO put here then fails or ends at once (the header check fails).
    fd = openSync(segmentFileFor(cacheDir, listedDir, id), READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.allocUnsafe(header.length);
    if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(header)) return undefined;
    const buf = Buffer.allocUnsafe(length);
    if (runReaderSync(readFully(buf, length, offset), fd) < length) return undefined;
    return buf.toString(ref.utf16 ? "utf16le" : "utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A text segment written while a listing reads files: each new `allMessagesText` is appended
 * as its file's result arrives (the main thread is mostly idle then), so a cold listing's save
 * writes only the index. Any failure turns the writer off; the save then writes the remaining
 * texts itself. A segment no index references is removed by the next save.
 */
export class SegmentWriter {
  private fd: number | undefined;
  /** Off: a write failed, or the segment was closed or discarded (no later text reopens it). */
  private failed = false;
  /** Segment offset of the next text (buffered bytes included). */
  private at = 0;
  private path = "";
  private id = "";
  /** Texts not yet written (one write per ~1 MiB instead of one per text). */
  private pending: Buffer | undefined;
  private pendingLength = 0;

  constructor(
    private readonly cacheDir: string,
    private readonly listedDir: string,
  ) {}

  /**
   * Appends `text` (not empty); returns where it is, or undefined when the writer is off. The
   * bytes are in the file once {@link close} has returned. After close or discard it is off:
   * files still being read when an aborted listing gave up must not open a segment that
   * nothing would close or delete.
   */
  add(text: string): TextRef | undefined {
    if (this.failed) return undefined;
    try {
      if (this.fd === undefined) {
        mkdirSync(this.cacheDir, { recursive: true });
        this.id = randomBytes(8).toString("hex");
        this.path = segmentFileFor(this.cacheDir, this.listedDir, this.id);
        // Exclusive create: a segment is written once and never modified after its listing.
        this.fd = openSync(this.path, "wx");
        const header = segmentHeader(this.id);
        writeAll(this.fd, header);
        this.at = header.length;
      }
      const encoding = isWellFormed(text) ? "utf8" : "utf16le";
      const length = Buffer.byteLength(text, encoding);
      this.pending ??= Buffer.allocUnsafe(SEGMENT_BUFFER_BYTES);
      if (this.pendingLength + length > this.pending.length) this.flush();
      if (length > this.pending.length) writeAll(this.fd, Buffer.from(text, encoding));
      else this.pendingLength += this.pending.write(text, this.pendingLength, encoding);
      const ref: TextRef = { segment: this.id, offset: this.at, length, utf16: encoding === "utf16le" };
      this.at += length;
      return ref;
    } catch {
      this.failed = true;
      this.close();
      return undefined;
    }
  }

  /** Writes the buffered texts. */
  private flush(): void {
    if (this.fd === undefined || this.pendingLength === 0 || this.pending === undefined) return;
    writeAll(this.fd, this.pending.subarray(0, this.pendingLength));
    this.pendingLength = 0;
  }

  /**
   * Writes what is buffered and closes the segment (idempotent). A text that did not make it
   * to the file (a failed write) reads back as missing and is recomputed from its session.
   */
  close(): void {
    this.failed = true;
    if (this.fd === undefined) return;
    try {
      this.flush();
    } catch {
      // The texts of the failed write read back as missing (see above).
    }
    this.pendingLength = 0;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing to keep: its texts are re-read from the sessions if the segment is bad.
    }
    this.fd = undefined;
  }

  /** Closes and deletes the segment (a listing that failed or was aborted). */
  discard(): void {
    this.failed = true;
    this.pendingLength = 0;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Deleted below anyway.
      }
      this.fd = undefined;
    }
    if (this.path === "") return;
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

/** Bytes of texts a segment writer buffers before writing them. */
const SEGMENT_BUFFER_BYTES = 1 << 20;

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}
