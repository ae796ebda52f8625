/**
 * The line codec: bytes of a session file -> records, with diagnostics.
 *
 * Use {@link parseSessionBytes} for a whole buffer and {@link SessionLineDecoder} to feed a
 * file chunk by chunk (a streaming reader, a tail-follower resuming at a byte offset). Both
 * give identical results for any split of the same bytes. Pure: no I/O, never throws.
 *
 * Rules: lines end at `\n` (0x0A) only; one trailing `\r` is stripped; a UTF-8 BOM is
 * stripped from the first line of a file only; blank lines (empty, or only JSON whitespace:
 * spaces, tabs, CRs) are counted but yield no record. Any other line is a record, so a rewrite
 * keeps it (a line of other white space, such as U+00A0 or U+2028, is a raw record).
 *
 * A broken line costs about what a good one costs: only a line shaped like an object (`{` to
 * `}`) goes to `JSON.parse` unchecked; any other line, and every line for a while after one
 * that `JSON.parse` rejected, is checked by {@link jsonSyntaxError} first, which proves it is
 * not JSON without the exception (a few microseconds each). The check accepts exactly what
 * `JSON.parse` accepts, so the records are the same either way, and the reason of an invalid
 * line is the check's own (the same on every engine).
 */
import { type JsonSyntaxError, isJsonText, isJsonWhitespace, jsonSyntaxError } from "../json-check.js";
import type { Diagnostic, JsonRecord, RawRecord, SessionRecord } from "../records.js";
import { NOT_JSON, STRIPPED_BOM, STRIPPED_CR, TextLineRecord } from "./raw-records.js";

// The package compiles without DOM or Node typings; these globals exist in every runtime
// we target (Node >= 11, browsers, workers). Declared locally so no `lib` change is needed.
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

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

export interface ParseResult {
  records: SessionRecord[];
  diagnostics: Diagnostic[];
  /** Diagnostics of malformed lines not kept because of `maxDiagnostics` (all are errors). */
  omittedDiagnostics: number;
  /** Records `keepRecord` dropped. */
  omittedRecords: number;
  /** Lines that were empty or JSON whitespace only (counted in line numbers, no record). */
  blankLines: number;
  /** Lines seen, blank ones included; an unterminated last line counts. */
  lines: number;
  /** Bytes seen. */
  bytes: number;
  /** Present when the input does not end with `\n` and its last line is not blank. */
  tornTail?: TornTail;
}

const LF = 10;
const CR_CHAR = 13;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const BOM_CHAR = 0xfeff;
const EXCERPT_CHARS = 60;
const WINDOW = 16 * 1024;
/** Lines decoded one at a time after a line with non-ASCII text (see {@link SessionLineDecoder.push}). */
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
/** Used if `JSON.parse` rejects what the check accepted (a bug of the check; never seen). */
const UNEXPLAINED: JsonSyntaxError = { index: 0, message: "rejected by JSON.parse" };

// Lazily created so importing the module costs nothing; TextDecoder is stateless when
// called without `stream: true`, so sharing one instance is safe.
let lenientDecoder: TextDecoder | undefined;
let fatalDecoder: TextDecoder | undefined;

function decodeLenient(bytes: Uint8Array, start: number, end: number): string {
  lenientDecoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
  return lenientDecoder.decode(bytes.subarray(start, end));
}

function isValidUtf8(bytes: Uint8Array): boolean {
  fatalDecoder ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    fatalDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Index of the first byte that starts an invalid UTF-8 sequence (for messages only). */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i] as number;
    let need = 0;
    let min = 0;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const n = b[i + k];
      if (n === undefined || (n & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (n & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/**
 * Whether a line is blank: empty, or only JSON whitespace (space, tab, CR; a line holds no
 * LF). Not `trim()`, which also strips U+00A0, U+2028, U+FEFF and others: such a line is not
 * JSON, and dropping it silently would erase it on the next rewrite.
 */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== CR_CHAR) return false;
  }
  return true;
}

/**
 * Whether a line that is not blank may be a JSON object: its first and last characters other
 * than JSON whitespace are `{` and `}`. Anything else cannot be one, whatever it holds.
 */
function objectShaped(text: string): boolean {
  let first = 0;
  while (isJsonWhitespace(text.charCodeAt(first))) first++;
  if (text.charCodeAt(first) !== OPEN_BRACE) return false;
  let last = text.length - 1;
  while (isJsonWhitespace(text.charCodeAt(last))) last--;
  return last > first && text.charCodeAt(last) === CLOSE_BRACE;
}

/** UTF-8 length of `text[0, end)` (the text is well-formed: it was decoded from valid UTF-8). */
function utf8Length(text: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    // A surrogate pair is 4 bytes, 2 per code unit.
    n += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
  }
  return n;
}

function describeValue(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

function excerpt(text: string): string {
  const cut = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  return JSON.stringify(cut);
}

function copyBytes(src: Uint8Array, start: number, end: number): Uint8Array {
  // `new Uint8Array(view)` copies, also when `src` is a Node Buffer (whose slice() does not).
  return new Uint8Array(src.subarray(start, end));
}

function concatBytes(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
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
  /** The last record made, kept or not (the torn tail's kind is read from it). */
  private last: SessionRecord | undefined;
  /** Object-shaped lines still to check before `JSON.parse` (see {@link CHECK_RUN}). */
  private checkRun = 0;
  /** The text, code and reason of the last malformed line: a run of equal lines shares one reason. */
  private lastBad: { text: string; code: "invalid-json" | "not-an-object"; reason: string } | undefined;
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
    if (this.pendingLength > 0) {
      // The line began in an earlier chunk: join and handle it alone.
      this.pending.push(chunk.subarray(0, firstNl));
      const lineBytes = concatBytes(this.pending, this.pendingLength + firstNl);
      this.pending = [];
      this.pendingLength = 0;
      this.lineFromBytes(lineBytes, 0, lineBytes.length, true, out);
      from = firstNl + 1;
    }
    const lastNl = chunk.lastIndexOf(LF);
    // Decode in windows of about WINDOW bytes cut at line ends: one decoder call per window
    // (not per line), and small windows keep most decoded strings one-byte even when a few
    // lines elsewhere hold non-ASCII text. One decode of the whole chunk was measured slower
    // (on 100 MB: 16 KiB windows ~20 ms, 256 KiB+ ~100 ms): big strings go to V8's
    // large-object space, and after the first non-ASCII byte V8 decodes on its slow path.
    // That slow path runs to the end of the window, ASCII lines included; non-ASCII text comes
    // in runs (a conversation, a tool's output), so after a window or line that had some, the
    // next NON_ASCII_RUN lines are decoded one at a time (short ones a few together), which
    // keeps the slow path to the lines that need it.
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
      if (this.region(chunk, from, cut + 1, out)) this.singleLines = NON_ASCII_RUN;
      from = cut + 1;
    }
    if (lastNl + 1 < len) {
      this.pending.push(copyBytes(chunk, lastNl + 1, len));
      this.pendingLength = len - lastNl - 1;
    }
    return out;
  }

  /** Ends the input: the held-back last line (if any) becomes an unterminated record. */
  end(): SessionRecord[] {
    const out: SessionRecord[] = [];
    if (this.ended) return out;
    this.ended = true;
    if (this.pendingLength === 0) return out;
    const lineBytes = concatBytes(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    const line = this.nextLineNo;
    const offset = this.lineStart;
    const lines = this.lineCount;
    this.lineFromBytes(lineBytes, 0, lineBytes.length, false, out);
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
          kind === "json"
            ? "last line has no terminating newline (complete JSON object; the write may have been cut short)"
            : `last line has no terminating newline and is not a complete JSON object (a torn write): ${excerpt(
                (rec as RawRecord).text,
              )}`,
      });
    }
    return out;
  }

  /**
   * Handles `bytes[start, end)`, which holds whole lines each ending with `\n`; returns whether
   * they held anything but ASCII.
   */
  private region(bytes: Uint8Array, start: number, end: number, out: SessionRecord[]): boolean {
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
      let lineText = text.slice(charPos, charNl);
      let suspect = false;
      if (nextBad >= 0 && nextBad < charNl) {
        suspect = true;
        nextBad = text.indexOf("\uFFFD", charNl);
      }
      if (suspect && !isValidUtf8(bytes.subarray(bytePos, nl))) {
        this.invalidUtf8(bytes, bytePos, nl, lineText, true, out);
      } else {
        if (lineText.charCodeAt(lineText.length - 1) === CR_CHAR) lineText = lineText.slice(0, -1);
        this.lineFromText(lineText, bytes, bytePos, nl, true, out);
      }
      bytePos = nl + 1;
      charPos = charNl + 1;
    }
    return !ascii;
  }

  private lineFromBytes(
    bytes: Uint8Array,
    start: number,
    end: number,
    terminated: boolean,
    out: SessionRecord[],
  ): void {
    let text = this.decode(bytes, start, end);
    if (text.includes("\uFFFD") && !isValidUtf8(bytes.subarray(start, end))) {
      this.invalidUtf8(bytes, start, end, text, terminated, out);
      return;
    }
    if (text.charCodeAt(text.length - 1) === CR_CHAR) text = text.slice(0, -1);
    this.lineFromText(text, bytes, start, end, terminated, out);
  }

  private lineFromText(
    text: string,
    bytes: Uint8Array,
    start: number,
    end: number,
    terminated: boolean,
    out: SessionRecord[],
  ): void {
    const line = this.nextLineNo++;
    const offset = this.lineStart;
    const byteLength = end - start;
    this.lineStart += byteLength + (terminated ? 1 : 0);
    this.lineCount++;
    let stripped = 0;
    if (this.bomPending) {
      this.bomPending = false;
      if (text.charCodeAt(0) === BOM_CHAR) {
        text = text.slice(1);
        stripped = STRIPPED_BOM;
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
      if (bytes[end - 1] === CR_CHAR) stripped |= STRIPPED_CR;
      const same = this.lastBad;
      if (same !== undefined && stripped === 0 && same.text === text) {
        this.raw(text, same.reason, same.code, line, offset, byteLength, terminated, stripped, out);
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
      if (bytes[end - 1] === CR_CHAR) stripped |= STRIPPED_CR;
      // An ASCII line has as many bytes as characters (plus what was stripped).
      const ascii =
        byteLength === text.length + (stripped & STRIPPED_BOM ? 3 : 0) + (stripped & STRIPPED_CR ? 1 : 0);
      const at = (stripped & STRIPPED_BOM ? 3 : 0) + (ascii ? error.index : utf8Length(text, error.index));
      const reason = `invalid JSON (${error.message}, at byte ${at} of the line): ${excerpt(text)}`;
      if (stripped === 0 && text.length <= MEMO_CHARS) this.lastBad = { text, code: "invalid-json", reason };
      this.raw(text, reason, "invalid-json", line, offset, byteLength, terminated, stripped, out);
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      if (bytes[end - 1] === CR_CHAR) stripped |= STRIPPED_CR;
      const reason = `line is ${describeValue(value)}, not a JSON object: ${excerpt(text)}`;
      if (stripped === 0 && text.length <= MEMO_CHARS) this.lastBad = { text, code: "not-an-object", reason };
      this.raw(text, reason, "not-an-object", line, offset, byteLength, terminated, stripped, out);
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
    this.emit(rec, out);
  }

  private invalidUtf8(
    bytes: Uint8Array,
    start: number,
    end: number,
    text: string,
    terminated: boolean,
    out: SessionRecord[],
  ): void {
    const line = this.nextLineNo++;
    const offset = this.lineStart;
    this.lineStart += end - start + (terminated ? 1 : 0);
    this.lineCount++;
    if (this.bomPending) {
      // As on a valid line: the text is what a reader parses (pi parses it with U+FFFD).
      this.bomPending = false;
      if (text.charCodeAt(0) === BOM_CHAR) text = text.slice(1);
    }
    if (text.charCodeAt(text.length - 1) === CR_CHAR) text = text.slice(0, -1);
    const at = firstInvalidUtf8(bytes.subarray(start, end));
    const reason = `invalid UTF-8 at byte ${at} of the line (file byte ${offset + at}): ${excerpt(text)}`;
    // Its text cannot give its bytes back: they are kept.
    const rec: RawRecord = {
      kind: "raw",
      line,
      offset,
      byteLength: end - start,
      terminated,
      bytes: copyBytes(bytes, start, end),
      text,
      reason,
    };
    this.emit(rec, out);
    this.diagnose("invalid-utf8", line, offset, reason);
  }

  /** A raw record of a line that is valid UTF-8 (its bytes are its text, plus what was stripped). */
  private raw(
    text: string,
    reason: string,
    code: "invalid-json" | "not-an-object",
    line: number,
    offset: number,
    byteLength: number,
    terminated: boolean,
    stripped: number,
    out: SessionRecord[],
  ): void {
    const flags = code === "invalid-json" ? stripped | NOT_JSON : stripped;
    this.emit(new TextLineRecord({ line, offset, byteLength, terminated }, text, reason, flags), out);
    this.diagnose(code, line, offset, reason);
  }

  private emit(rec: SessionRecord, out: SessionRecord[]): void {
    this.last = rec;
    if (this.keep === undefined || this.keep(rec)) out.push(rec);
    else this.omittedRecs++;
  }

  private diagnose(
    code: "invalid-json" | "not-an-object" | "invalid-utf8",
    line: number,
    offset: number,
    reason: string,
  ) {
    if (this.diags.length < this.maxDiags) this.diags.push({ code, severity: "error", line, offset, reason });
    else this.omitted++;
  }
}

/**
 * What `JSON.parse` gives for the text of a raw record (the line decoded with U+FFFD for
 * invalid UTF-8, as pi's reader decodes it), or `undefined` when it does not parse; known
 * without parsing for a line the codec itself found not to be JSON.
 */
export function rawRecordValue(record: RawRecord): unknown {
  if (TextLineRecord.isKnownNotJson(record) || !isJsonText(record.text)) return undefined;
  try {
    return JSON.parse(record.text);
  } catch {
    return undefined;
  }
}

/** Parses a whole buffer (a file, or a slice of one with `startOffset`/`startLine`). */
export function parseSessionBytes(bytes: Uint8Array, opts?: DecoderOptions): ParseResult {
  const dec = new SessionLineDecoder(opts);
  const records = dec.push(bytes);
  for (const r of dec.end()) records.push(r);
  return resultOf(dec, records);
}

/** Parses a string (encoded to UTF-8 first, so offsets are byte offsets). */
export function parseSessionText(text: string, opts?: DecoderOptions): ParseResult {
  return parseSessionBytes(new TextEncoder().encode(text), opts);
}

/** Builds a {@link ParseResult} from a decoder after {@link SessionLineDecoder.end}. */
export function resultOf(dec: SessionLineDecoder, records: SessionRecord[]): ParseResult {
  const result: ParseResult = {
    records,
    diagnostics: dec.diagnostics,
    omittedDiagnostics: dec.omittedDiagnostics,
    omittedRecords: dec.omittedRecords,
    blankLines: dec.blankLines,
    lines: dec.lines,
    bytes: dec.bytes,
  };
  const torn = dec.tornTail;
  if (torn !== undefined) result.tornTail = torn;
  return result;
}
