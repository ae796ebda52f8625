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
 */
import type { Diagnostic, JsonRecord, RawRecord, SessionRecord } from "./records.js";

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
const BOM_CHAR = 0xfeff;
const EXCERPT_CHARS = 60;
const WINDOW = 16 * 1024;
/** Lines decoded one at a time after a line with non-ASCII text (see {@link SessionLineDecoder.push}). */
const NON_ASCII_RUN = 128;
/** In such a run, lines up to SHORT_LINE bytes are decoded together, up to SHORT_GROUP bytes. */
const SHORT_LINE = 512;
const SHORT_GROUP = 4096;

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
  }

  /** Every diagnostic so far, in line order. */
  get diagnostics(): Diagnostic[] {
    return this.diags;
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
    this.lineFromBytes(lineBytes, 0, lineBytes.length, false, out);
    const rec = out[0];
    if (rec !== undefined) {
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
    if (this.bomPending) {
      this.bomPending = false;
      if (text.charCodeAt(0) === BOM_CHAR) text = text.slice(1);
    }
    const c0 = text.charCodeAt(0);
    if (c0 !== OPEN_BRACE && isBlank(text)) {
      this.blank++;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      const reason = `invalid JSON (${msg}): ${excerpt(text)}`;
      this.raw(bytes, start, end, text, reason, "invalid-json", line, offset, terminated, out);
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      const what = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
      const reason = `line is ${what}, not a JSON object: ${excerpt(text)}`;
      this.raw(bytes, start, end, text, reason, "not-an-object", line, offset, terminated, out);
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
    out.push(rec);
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
    this.raw(bytes, start, end, text, reason, "invalid-utf8", line, offset, terminated, out);
  }

  private raw(
    bytes: Uint8Array,
    start: number,
    end: number,
    text: string,
    reason: string,
    code: "invalid-json" | "not-an-object" | "invalid-utf8",
    line: number,
    offset: number,
    terminated: boolean,
    out: SessionRecord[],
  ): void {
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
    out.push(rec);
    this.diags.push({ code, severity: "error", line, offset, reason });
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
    blankLines: dec.blankLines,
    lines: dec.lines,
    bytes: dec.bytes,
  };
  const torn = dec.tornTail;
  if (torn !== undefined) result.tornTail = torn;
  return result;
}
