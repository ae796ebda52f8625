/**
 * The fast path of listing: feeds a file's bytes into an `InfoState` (see `info.ts`) without
 * `JSON.parse` on most lines. A WebAssembly scanner (`assembly/scan.ts`, embedded by
 * `scan-wasm.ts`) proves each line valid and sorts it; lines listing ignores cost nothing more,
 * other messages only count, and user/assistant messages yield the spans of their timestamps
 * and texts, which are fed into the state as `applyRecord` would feed an entry with just those
 * fields (without building it).
 * Headers, `session_info` lines and every line the scanner cannot vouch for go through the
 * `format` codec exactly as before, so the state is the one the codec path gives, for any
 * input (property-tested in `scan.test.ts`).
 *
 * Without WebAssembly SIMD (or if the module fails to load, or with `PI_SESSION_NO_WASM=1` in
 * the environment) {@link lineScanner} returns null and {@link infoReader} gives the codec path.
 */
import { SessionLineDecoder } from "@pi-session/format";
import { RecordDecoder } from "../read/codec.js";
import { type InfoState, applyRecord } from "./info.js";
import { LineCode, type LineScanner, MAX_SCAN_BYTES, lineScanner } from "./line-scanner.js";

/** A copy of `bytes[from..]` (`Buffer#slice` would share the caller's memory, which it reuses). */
function copyOf(bytes: Uint8Array, from: number): Uint8Array {
  const out = new Uint8Array(bytes.length - from);
  out.set(bytes.subarray(from));
  return out;
}

/**
 * Feeds a file's bytes (from `startOffset`, a line start) into `state`, giving the state the
 * codec path (`RecordDecoder` + `applyRecord` on every record) gives. Same interface as that
 * path: push chunks, call {@link end} once.
 */
export class InfoReader implements StateReader {
  private readonly scanner: LineScanner;
  private readonly state: InfoState;
  /** The codec, for the lines the scanner does not vouch for (it sees only those lines). */
  private readonly codec: SessionLineDecoder;
  private carry: Uint8Array[] = [];
  private carryLength = 0;
  /**
   * While a region too long for the scanner (a huge line) goes to the codec: the bytes of it
   * fed so far (not yet in `offset`), else -1. The codec keeps the line's bytes; no carry of
   * them is kept here too.
   */
  private viaCodec = -1;
  /** The codec's line count when {@link viaCodec} began. */
  private codecLinesBefore = 0;
  private offset: number;
  private line: number;
  private readonly onLine = (k: number): void => this.handle(k);
  /**
   * Lines for the codec not fed yet: `[pendingStart, pendingEnd)` of the scanner's memory.
   * Consecutive ones go to the codec in one push (a push per line cost ~1 µs each: a file of a
   * million lines the scanner cannot vouch for listed slower than pi).
   */
  private pendingStart = 0;
  private pendingEnd = 0;

  /** Regions (whole lines) longer than this take the codec path (see {@link push}). */
  private readonly maxScanBytes: number;

  constructor(
    scanner: LineScanner,
    state: InfoState,
    start: { startOffset?: number; startLine?: number } = {},
    opts: { maxScanBytes?: number } = {},
  ) {
    this.maxScanBytes = opts.maxScanBytes ?? MAX_SCAN_BYTES;
    this.scanner = scanner;
    this.state = state;
    this.offset = start.startOffset ?? 0;
    this.line = start.startLine ?? 1;
    // Only the first line of the file may lose a BOM, as in the codec path.
    // Each record is applied as it is made and not kept, and listing shows no diagnostics: a
    // million broken lines cost no million objects.
    this.codec = new SessionLineDecoder({
      firstLineIsFileStart: this.offset === 0,
      maxDiagnostics: 0,
      keepRecord: (record) => {
        applyRecord(this.state, record);
        return false;
      },
    });
  }

  /** Byte offset where the next (not yet complete) line starts: a safe resume point. */
  get committedOffset(): number {
    return this.offset;
  }

  /** Line number the next line will get. */
  get nextLine(): number {
    return this.line;
  }

  /** The first JSON line was not a header: the file is not a session, stop. */
  private rejected(): boolean {
    return this.state.header === false;
  }

  private exact(bytes: Uint8Array): void {
    this.codec.push(bytes);
  }

  private handle(k: number): void {
    const w = this.scanner.memoryWords;
    const code = w[k + 2];
    const start = w[k] as number;
    if (code === LineCode.User || code === LineCode.Assistant) {
      // In file order: the lines before it first.
      this.flushPending();
      // A line before this one made the file not a session (see `applyRecord`): nothing counts.
      if (this.state.header === false) return;
      this.scanner.applyMessage(this.state, k);
      return;
    }
    // Fallback or Slow: the line's bytes, with its "\n", through the codec.
    if (start !== this.pendingEnd) this.flushPending();
    if (this.pendingStart === this.pendingEnd) this.pendingStart = start;
    this.pendingEnd = (w[k + 1] as number) + 1;
  }

  private flushPending(): void {
    if (this.pendingStart === this.pendingEnd) return;
    const bytes = this.scanner.memoryBytes.subarray(this.pendingStart, this.pendingEnd);
    this.pendingStart = this.pendingEnd = 0;
    if (this.state.header !== false) this.exact(bytes);
  }

  /** Feeds the next chunk. */
  push(chunk: Uint8Array): void {
    if (this.state.header === false || chunk.length === 0) return;
    const lastNl = chunk.lastIndexOf(10);
    if (lastNl < 0) {
      if (this.viaCodec < 0 && this.carryLength + chunk.length <= this.maxScanBytes) {
        this.carry.push(copyOf(chunk, 0));
        this.carryLength += chunk.length;
        return;
      }
      this.startViaCodec();
      this.exact(chunk);
      this.viaCodec += chunk.length;
      return;
    }
    const length = this.carryLength + lastNl + 1;
    if (this.viaCodec >= 0 || length > this.maxScanBytes) {
      // A huge line: scanning it would grow this thread's scanner memory for good (WebAssembly
      // memory never shrinks), so the codec path takes the whole region.
      this.startViaCodec();
      this.exact(chunk.subarray(0, lastNl + 1));
      this.line += this.codec.lines - this.codecLinesBefore;
      this.offset += this.viaCodec + lastNl + 1;
      this.viaCodec = -1;
      this.carry = lastNl + 1 < chunk.length ? [copyOf(chunk, lastNl + 1)] : [];
      this.carryLength = chunk.length - lastNl - 1;
      return;
    }
    const scanner = this.scanner;
    const mem = scanner.ensure(length);
    let at = scanner.input;
    for (const piece of this.carry) {
      mem.set(piece, at);
      at += piece.length;
    }
    mem.set(chunk.subarray(0, lastNl + 1), at);
    this.carry = [];
    this.carryLength = 0;
    if (lastNl + 1 < chunk.length) {
      this.carry.push(copyOf(chunk, lastNl + 1));
      this.carryLength = chunk.length - lastNl - 1;
    }
    let from = scanner.input;
    const end = scanner.input + length;
    // Until the header is known, every line takes the codec path (it decides what the file is).
    while (this.state.header === undefined && from < end) {
      const nl = mem.indexOf(10, from);
      this.exact(mem.subarray(from, nl + 1));
      this.line++;
      this.offset += nl + 1 - from;
      from = nl + 1;
    }
    if (this.rejected() || from >= end) return;
    const { lines, messages } = scanner.scan(from, end, this.onLine);
    this.flushPending();
    if (!this.rejected()) this.state.messageCount += messages;
    this.line += lines;
    this.offset += end - from;
  }

  /** Hands the carry to the codec: the region it starts is too long for the scanner. */
  private startViaCodec(): void {
    if (this.viaCodec >= 0) return;
    this.codecLinesBefore = this.codec.lines;
    this.viaCodec = this.carryLength;
    for (const piece of this.carry) this.exact(piece);
    this.carry = [];
    this.carryLength = 0;
  }

  /** Ends the input: a last line without `\n` goes through the codec (a torn tail). */
  end(): void {
    if ((this.carryLength > 0 || this.viaCodec > 0) && this.state.header !== false) {
      for (const piece of this.carry) this.exact(piece);
      this.codec.end();
    }
    this.carry = [];
    this.carryLength = 0;
    this.viaCodec = -1;
  }
}

/** What listing feeds a file's bytes into. */
export interface StateReader {
  push(chunk: Uint8Array): void;
  end(): void;
  readonly committedOffset: number;
  readonly nextLine: number;
}

/** The codec path: every line through `RecordDecoder`, every record through `applyRecord`. */
export class CodecInfoReader implements StateReader {
  private readonly decoder: RecordDecoder;
  private readonly state: InfoState;

  constructor(state: InfoState, start: { startOffset?: number; startLine?: number } = {}) {
    this.state = state;
    // Applied as made, not kept (see InfoReader).
    this.decoder = new RecordDecoder({
      ...start,
      maxDiagnostics: 0,
      keepRecord: (record) => {
        applyRecord(this.state, record);
        return false;
      },
    });
  }

  get committedOffset(): number {
    return this.decoder.committedOffset;
  }

  get nextLine(): number {
    return this.decoder.nextLine;
  }

  push(chunk: Uint8Array): void {
    this.decoder.push(chunk);
  }

  end(): void {
    this.decoder.end();
  }
}

/** The fastest reader available here: {@link InfoReader}, else {@link CodecInfoReader}. */
export function infoReader(
  state: InfoState,
  start: { startOffset?: number; startLine?: number } = {},
): StateReader {
  const scanner = lineScanner();
  return scanner ? new InfoReader(scanner, state, start) : new CodecInfoReader(state, start);
}
