/**
 * The line decoder: bytes of a session file -> records, with diagnostics, chunk by chunk.
 *
 * Use {@link SessionLineDecoder} to feed a file as it is read (a streaming reader, a
 * tail-follower resuming at a byte offset); `parseSessionBytes` (./parse.ts) runs it over a
 * whole buffer. Any split of the same bytes gives the same records. Pure: no I/O, never throws.
 *
 * Rules: lines end at `\n` (0x0A) only; one trailing `\r` is stripped; a UTF-8 BOM is
 * stripped from the first line of a file only; blank lines (empty, or only JSON whitespace:
 * spaces, tabs, CRs) are counted but yield no record. Any other line is a record, so a rewrite
 * keeps it (a line of other white space, such as U+00A0 or U+2028, is a raw record).
 *
 * A broken line costs about what a good one costs: only a line shaped like an object (`{` to
 * `}`) goes to `JSON.parse` unchecked; any other line, and every line for a while after one
 * that `JSON.parse` rejected, is checked by {@link jsonSyntaxError} first, which proves it is
 * not JSON without the exception. The check accepts exactly what `JSON.parse` accepts, so the
 * records are the same either way, and the reason of an invalid line is the check's own (the
 * same on every engine). See docs/decisions/002 and 116.
 */
import {
  concatBytes,
  copyBytes,
  decodeLenient,
  firstInvalidUtf8,
  isValidUtf8,
  utf8Length,
} from "../bytes.js";
import { type JsonSyntaxError, jsonSyntaxError } from "../json-check.js";
import type { Diagnostic, JsonRecord, RawRecord, RecordPosition, SessionRecord } from "../records.js";
import { isBlank, objectShaped } from "./line-shape.js";
import { type MalformedLine, NOT_JSON, STRIPPED_BOM, STRIPPED_CR, TextLineRecord } from "./raw-records.js";

/** Where a parse starts; lets a reader resume in the middle of a file. */
export interface DecoderOptions {
  /** Byte offset of the first byte that will be pushed (default 0). */
  startOffset?: number;
  /** Line number of the first line that will be pushed (default 1). */
  startLine?: number;
  /**
   * Whether the first pushed byte is the start of the file, so a BOM on the first line is
   * stripped. Default: `startOffset === 0`.
   */
  firstLineIsFileStart?: boolean;
  /**
   * Optional faster UTF-8 decoder for `bytes[start, end)`. It must give exactly what
   * `new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(start, end))` gives
   * (U+FFFD for invalid sequences, a BOM kept as U+FEFF). Default: that TextDecoder. A Node
   * caller may pass a `Buffer`-based one; this package itself stays runtime-neutral.
   */
  decode?: (bytes: Uint8Array, start: number, end: number) => string;
  /**
   * Keep at most this many diagnostics of malformed lines (the first ones, in line order) and
   * only count the others ({@link SessionLineDecoder.omittedDiagnostics}; all are errors). The
   * `torn-tail` diagnostic is always kept. Default: keep all. A reader that shows a few, or
   * none (the records carry their reasons), keeps a million broken lines cheap.
   */
  maxDiagnostics?: number;
  /**
   * Called with each record as it is made; one it returns false for is not returned (only
   * counted in {@link SessionLineDecoder.omittedRecords}). Dropping records here, not after a
   * chunk, lets the engine free them young: a reader that keeps only some records (entries,
   * say) then costs no memory for a million broken lines.
   */
  keepRecord?: (record: SessionRecord) => boolean;
}

export interface TornTail {
  /** `json` if the unterminated last line parsed as an object, else `fragment`. */
  kind: "json" | "fragment";
  line: number;
  offset: number;
  byteLength: number;
}

const LF = 10;
const CR_CHAR = 13;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const BOM_CHAR = 0xfeff;
const EXCERPT_CHARS = 60;
/** Bytes decoded in one call, cut at a line end (see {@link SessionLineDecoder.push}). */
const WINDOW = 16 * 1024;
/** Lines decoded one at a time after a line with non-ASCII text. */
const NON_ASCII_RUN = 128;
/** In such a run, lines up to SHORT_LINE bytes are decoded together, up to SHORT_GROUP bytes. */
const SHORT_LINE = 512;
const SHORT_GROUP = 4096;
/**
 * After `JSON.parse` rejects an object-shaped line, this many more such lines are checked
 * before they are parsed (broken lines come in runs; checking a good line costs one more scan).
 */
const CHECK_RUN = 64;
/** Longest malformed line whose reason is remembered for the next line. */
const MEMO_CHARS = 256;
/**
 * Tests set `parseEveryLine` to make every line take the plain path (`JSON.parse` first, the
 * check only for the reason of a line it rejects): the reference the fast path is held to.
 * Not exported from the package.
 */
export const codecTesting = { parseEveryLine: false };
/** Where `push` and `end` put no records (between calls). */
const NO_RECORDS: SessionRecord[] = [];
/** Used if `JSON.parse` rejects what the check accepted (a bug of the check; never seen). */
const UNEXPLAINED: JsonSyntaxError = { index: 0, message: "rejected by JSON.parse" };

function describeValue(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

function excerpt(text: string): string {
  const cut = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  return JSON.stringify(cut);
}

/**
 * Incremental decoder: push chunks as they arrive, get the records of every line completed
 * so far; call {@link end} once at the end of input for the last, unterminated line.
 */
export class SessionLineDecoder {
  private readonly diags: Diagnostic[] = [];
  private readonly maxDiags: number;
  private omitted = 0;
  private readonly keep: ((record: SessionRecord) => boolean) | undefined;
  private omittedRecs = 0;
  /** The records of the current `push` or `end` call. */
  private out: SessionRecord[] = NO_RECORDS;
  /** Whether the line being decoded ended with `\n`: false only for the last line, in `end`. */
  private lineTerminated = true;
  /** The last record made, kept or not (the torn tail's kind is read from it). */
  private last: SessionRecord | undefined;
  /** Object-shaped lines still to check before `JSON.parse` (see {@link CHECK_RUN}). */
  private checkRun = 0;
  /** The last malformed line: a run of equal lines shares one reason. */
  private lastBad: MalformedLine | undefined;
  private blank = 0;
  private lineCount = 0;
  private byteCount = 0;
  /** Offset of the first byte not yet part of a completed line. */
  private lineStart: number;
  private nextLineNo: number;
  private bomPending: boolean;
  private pending: Uint8Array[] = [];
  private pendingLength = 0;
  private torn: TornTail | undefined;
  private ended = false;
  /** Lines still to decode one at a time (non-ASCII text was seen just before). */
  private singleLines = 0;
  private readonly decode: (bytes: Uint8Array, start: number, end: number) => string;

  constructor(opts: DecoderOptions = {}) {
    const startOffset = opts.startOffset ?? 0;
    this.decode = opts.decode ?? decodeLenient;
    this.lineStart = startOffset;
    this.nextLineNo = opts.startLine ?? 1;
    this.bomPending = opts.firstLineIsFileStart ?? startOffset === 0;
    this.maxDiags = opts.maxDiagnostics ?? Number.POSITIVE_INFINITY;
    this.keep = opts.keepRecord;
  }

  /** Every diagnostic so far (up to `maxDiagnostics`, and a torn tail's), in line order. */
  get diagnostics(): Diagnostic[] {
    return this.diags;
  }
  /** Diagnostics not kept because of `maxDiagnostics` (all of malformed lines: errors). */
  get omittedDiagnostics(): number {
    return this.omitted;
  }
  /** Records `keepRecord` dropped. */
  get omittedRecords(): number {
    return this.omittedRecs;
  }
  get blankLines(): number {
    return this.blank;
  }
  /** Lines completed so far (blank ones included). */
  get lines(): number {
    return this.lineCount;
  }
  /** Bytes pushed so far. */
  get bytes(): number {
    return this.byteCount;
  }
  /** Byte offset where the next (not yet complete) line starts: a safe resume point. */
  get committedOffset(): number {
    return this.lineStart;
  }
  /** Line number the next line will get. */
  get nextLine(): number {
    return this.nextLineNo;
  }
  /** Bytes held back because their line has no `\n` yet. */
  get pendingBytes(): number {
    return this.pendingLength;
  }
  /** Set by {@link end} when the input did not end with `\n`. */
  get tornTail(): TornTail | undefined {
    return this.torn;
  }

  /** Feeds the next chunk; returns the records of the lines it completed. */
  push(chunk: Uint8Array): SessionRecord[] {
    const out: SessionRecord[] = [];
    this.last = undefined;
    const len = chunk.length;
    if (len === 0) return out;
    this.ended = false;
    this.byteCount += len;
    let from = 0;
    const firstNl = chunk.indexOf(LF);
    if (firstNl < 0) {
      this.pending.push(copyBytes(chunk, 0, len));
      this.pendingLength += len;
      return out;
    }
    this.out = out;
    if (this.pendingLength > 0) {
      // The line began in an earlier chunk: join and handle it alone.
      this.pending.push(chunk.subarray(0, firstNl));
      this.lineFromBytes(this.takePending());
      from = firstNl + 1;
    }
    const lastNl = chunk.lastIndexOf(LF);
    // Decode in windows of about WINDOW bytes cut at line ends: one decoder call per window,
    // not per line. After a window or line with non-ASCII text, the next NON_ASCII_RUN lines
    // are decoded one at a time (short ones a few together), so that the engine's slower
    // decoding of non-ASCII text covers only the lines that need it (decision 002).
    while (from <= lastNl) {
      let cut: number;
      if (this.singleLines > 0) {
        this.singleLines--;
        cut = chunk.indexOf(LF, from);
        // Short lines go together: a decoder call per line costs more than decoding a few
        // hundred ASCII bytes slowly.
        while (cut - from < SHORT_GROUP && cut < lastNl && this.singleLines > 0) {
          const next = chunk.indexOf(LF, cut + 1);
          if (next - cut > SHORT_LINE) break;
          cut = next;
          this.singleLines--;
        }
      } else {
        cut = from + WINDOW >= lastNl ? lastNl : chunk.indexOf(LF, from + WINDOW);
        if (cut < 0) cut = lastNl;
      }
      if (this.region(chunk, from, cut + 1)) this.singleLines = NON_ASCII_RUN;
      from = cut + 1;
    }
    if (lastNl + 1 < len) {
      this.pending.push(copyBytes(chunk, lastNl + 1, len));
      this.pendingLength = len - lastNl - 1;
    }
    this.out = NO_RECORDS;
    return out;
  }

  /** Ends the input: the held-back last line (if any) becomes an unterminated record. */
  end(): SessionRecord[] {
    const out: SessionRecord[] = [];
    if (this.ended) return out;
    this.ended = true;
    if (this.pendingLength === 0) return out;
    const line = this.nextLineNo;
    const offset = this.lineStart;
    const lines = this.lineCount;
    this.out = out;
    this.lineTerminated = false;
    this.lineFromBytes(this.takePending());
    this.lineTerminated = true;
    this.out = NO_RECORDS;
    const rec = this.lineCount > lines ? this.last : undefined;
    if (rec !== undefined && rec.line === line) {
      const kind = rec.kind === "json" ? "json" : "fragment";
      this.torn = { kind, line, offset, byteLength: rec.byteLength };
      this.diags.push({
        code: "torn-tail",
        severity: kind === "json" ? "warning" : "error",
        line,
        offset,
        reason:
          rec.kind === "json"
            ? "last line has no terminating newline (complete JSON object; the write may have been cut short)"
            : `last line has no terminating newline and is not a complete JSON object (a torn write): ${excerpt(rec.text)}`,
      });
    }
    return out;
  }

  /** The held-back bytes of the current line, joined; the pending list is emptied. */
  private takePending(): Uint8Array {
    const line = concatBytes(this.pending);
    this.pending = [];
    this.pendingLength = 0;
    return line;
  }

  /**
   * Handles `bytes[start, end)`, which holds whole lines each ending with `\n`; returns whether
   * they held anything but ASCII.
   */
  private region(bytes: Uint8Array, start: number, end: number): boolean {
    const text = this.decode(bytes, start, end);
    // U+FFFD anywhere means a line may hold invalid UTF-8; find them lazily.
    let nextBad = text.indexOf("\uFFFD");
    // Same length and no replacement character: every byte was ASCII, so character
    // positions are byte positions and the byte search can be skipped.
    const ascii = nextBad < 0 && text.length === end - start;
    let bytePos = start;
    let charPos = 0;
    while (bytePos < end) {
      const charNl = text.indexOf("\n", charPos);
      const nl = ascii ? start + charNl : bytes.indexOf(LF, bytePos);
      const lineText = text.slice(charPos, charNl);
      let suspect = false;
      if (nextBad >= 0 && nextBad < charNl) {
        suspect = true;
        nextBad = text.indexOf("\uFFFD", charNl);
      }
      const lineBytes = suspect ? bytes.subarray(bytePos, nl) : undefined;
      if (lineBytes !== undefined && !isValidUtf8(lineBytes)) {
        this.invalidUtf8(lineBytes, lineText);
      } else if (lineText.charCodeAt(lineText.length - 1) === CR_CHAR) {
        this.lineFromText(lineText.slice(0, -1), nl - bytePos, STRIPPED_CR);
      } else {
        this.lineFromText(lineText, nl - bytePos, 0);
      }
      bytePos = nl + 1;
      charPos = charNl + 1;
    }
    return !ascii;
  }

  /** Handles one line (without its `\n`) that came in pieces. */
  private lineFromBytes(line: Uint8Array): void {
    const text = this.decode(line, 0, line.length);
    if (text.includes("\uFFFD") && !isValidUtf8(line)) this.invalidUtf8(line, text);
    else if (text.charCodeAt(text.length - 1) === CR_CHAR)
      this.lineFromText(text.slice(0, -1), line.length, STRIPPED_CR);
    else this.lineFromText(text, line.length, 0);
  }

  /**
   * Handles one line of valid UTF-8: `text` is the line without a trailing CR (`stripped` says
   * whether there was one), `byteLength` its length in the file, `\n` excluded.
   */
  private lineFromText(text: string, byteLength: number, stripped: number): void {
    const line = this.nextLineNo++;
    const offset = this.lineStart;
    const terminated = this.lineTerminated;
    this.lineStart += byteLength + (terminated ? 1 : 0);
    this.lineCount++;
    if (this.bomPending) {
      this.bomPending = false;
      if (text.charCodeAt(0) === BOM_CHAR) {
        text = text.slice(1);
        stripped |= STRIPPED_BOM;
      }
    }
    const c0 = text.charCodeAt(0);
    if (c0 !== OPEN_BRACE && isBlank(text)) {
      this.blank++;
      return;
    }
    // The common case first: an object-shaped line, parsed unchecked unless one just failed.
    const shaped =
      c0 === OPEN_BRACE && text.charCodeAt(text.length - 1) === CLOSE_BRACE ? true : objectShaped(text);
    let value: unknown;
    let error: JsonSyntaxError | undefined;
    if ((shaped && this.checkRun === 0) || codecTesting.parseEveryLine) {
      try {
        value = JSON.parse(text);
      } catch {
        error = jsonSyntaxError(text) ?? UNEXPLAINED;
        this.checkRun = CHECK_RUN;
      }
    } else {
      const same = this.lastBad;
      if (same !== undefined && stripped === 0 && same.text === text) {
        this.raw({ line, offset, byteLength, terminated }, same, stripped);
        return;
      }
      error = jsonSyntaxError(text);
      if (error === undefined) {
        try {
          value = JSON.parse(text);
        } catch {
          error = UNEXPLAINED;
        }
      }
      if (shaped) this.checkRun = error === undefined ? this.checkRun - 1 : CHECK_RUN;
    }
    if (error !== undefined) {
      // An ASCII line has as many bytes as characters (plus what was stripped).
      const bomBytes = stripped & STRIPPED_BOM ? 3 : 0;
      const ascii = byteLength === text.length + bomBytes + (stripped & STRIPPED_CR ? 1 : 0);
      const at = bomBytes + (ascii ? error.index : utf8Length(text, error.index));
      const reason = `invalid JSON (${error.message}, at byte ${at} of the line): ${excerpt(text)}`;
      this.malformed(
        { line, offset, byteLength, terminated },
        { text, code: "invalid-json", reason },
        stripped,
      );
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      const reason = `line is ${describeValue(value)}, not a JSON object: ${excerpt(text)}`;
      this.malformed(
        { line, offset, byteLength, terminated },
        { text, code: "not-an-object", reason },
        stripped,
      );
      return;
    }
    const rec: JsonRecord = {
      kind: "json",
      line,
      offset,
      byteLength,
      terminated,
      value: value as Record<string, unknown>,
    };
    this.emit(rec);
  }

  /** A line that is valid UTF-8 but no JSON object; remembered when the next may repeat it. */
  private malformed(position: RecordPosition, bad: MalformedLine, stripped: number): void {
    if (stripped === 0 && bad.text.length <= MEMO_CHARS) this.lastBad = bad;
    this.raw(position, bad, stripped);
  }

  /** Handles one line (without its `\n`) that is not valid UTF-8; its text has U+FFFD for the bad bytes. */
  private invalidUtf8(bytes: Uint8Array, text: string): void {
    const line = this.nextLineNo++;
    const offset = this.lineStart;
    const terminated = this.lineTerminated;
    this.lineStart += bytes.length + (terminated ? 1 : 0);
    this.lineCount++;
    if (this.bomPending) {
      // As on a valid line: the text is what a reader parses (pi parses it with U+FFFD).
      this.bomPending = false;
      if (text.charCodeAt(0) === BOM_CHAR) text = text.slice(1);
    }
    if (text.charCodeAt(text.length - 1) === CR_CHAR) text = text.slice(0, -1);
    const at = firstInvalidUtf8(bytes);
    const reason = `invalid UTF-8 at byte ${at} of the line (file byte ${offset + at}): ${excerpt(text)}`;
    // Its text cannot give its bytes back: they are kept.
    const rec: RawRecord = {
      kind: "raw",
      line,
      offset,
      byteLength: bytes.length,
      terminated,
      bytes: copyBytes(bytes, 0, bytes.length),
      text,
      reason,
    };
    this.emit(rec);
    this.diagnose("invalid-utf8", rec);
  }

  /** The raw record of a line that is valid UTF-8 (its bytes are its text, plus what was stripped). */
  private raw(position: RecordPosition, bad: MalformedLine, stripped: number): void {
    const flags = bad.code === "invalid-json" ? stripped | NOT_JSON : stripped;
    const rec = new TextLineRecord(position, bad, flags);
    this.emit(rec);
    this.diagnose(bad.code, rec);
  }

  private emit(rec: SessionRecord): void {
    this.last = rec;
    if (this.keep === undefined || this.keep(rec)) this.out.push(rec);
    else this.omittedRecs++;
  }

  private diagnose(code: "invalid-json" | "not-an-object" | "invalid-utf8", rec: RawRecord): void {
    const { line, offset, reason } = rec;
    if (this.diags.length < this.maxDiags) this.diags.push({ code, severity: "error", line, offset, reason });
    else this.omitted++;
  }
}
