/**
 * The WebAssembly line scanner (`assembly/scan.ts`, embedded by `scan-wasm.ts`): proves each
 * line of a chunk valid JSON and sorts it by what listing needs of it, giving the spans of a
 * user or assistant message's timestamps and texts. One instance per thread; null where
 * WebAssembly SIMD is missing or `PI_SESSION_NO_WASM=1`.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import type { InfoState } from "./info.js";
import { addMessageText, zoneDependentTime } from "./info.js";
import { SCAN_WASM_BASE64 } from "./scan-wasm.js";

/** How the scanner sorts a line (the codes of `assembly/scan.ts`). */
export const LineCode = {
  /** Not proven valid, or not understood: the codec decides. */
  Fallback: 0,
  /** A valid JSON object listing ignores. */
  Other: 1,
  /** A valid `message` entry whose role is not user or assistant: counted only. */
  MessageOther: 2,
  /** A valid header or `session_info` line: the codec path. */
  Slow: 3,
  User: 4,
  Assistant: 5,
} as const;

const F_ESCAPED = 2;
const F_NON_ASCII = 4;
const F_NULL = 8;
const C_ABSENT = 0;
const C_STRING = 1;
const C_ARRAY = 2;

/** Largest region (carry + chunk) the scanner takes; larger ones (huge lines) use the codec. */
export const MAX_SCAN_BYTES = 64 * 1024 * 1024;
const STACK_BYTES = 1024;
const SPAN_BYTES = 1024 * 12;
const OUT_BYTES = 256 * 1024;
/**
 * Room for the ids `scanEntries` copies out of a batch: 64 bytes for each of its 8,192 records
 * (pi's ids have 8 characters, a UUID 36); an id that does not fit stays in the line.
 */
const IDS_BYTES = 512 * 1024;
/** The scanner reads up to 32 bytes past the end of its input (two SIMD loads). */
const SLACK = 64;
const PAGE = 65536;

// The WebAssembly API this module uses (the package compiles without DOM typings).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

interface ScanExports {
  memory: WasmMemory;
  heapBase(): number;
  messages(): number;
  lines(): number;
  outBytes(): number;
  scanLines(start: number, end: number, out: number, outEnd: number, stack: number, spans: number): number;
  scanEntries(
    start: number,
    end: number,
    out: number,
    outEnd: number,
    stack: number,
    ids: number,
    idsEnd: number,
  ): number;
  idBytes(): number;
}

/** One scanner instance and its memory layout (one per thread: scanning is synchronous). */
export class LineScanner {
  private readonly x: ScanExports;
  private readonly stack: number;
  private readonly spans: number;
  private readonly out: number;
  private readonly outEnd: number;
  private readonly ids: number;
  /** Where input bytes go. */
  readonly input: number;
  private bytes!: Buffer;
  private words!: Uint32Array;

  constructor(api: WasmApi, module: object) {
    const instance = new api.Instance(module, {
      env: {
        abort() {
          throw new Error("line scanner aborted");
        },
      },
    });
    // The one cast of the module's exports: the embedded module is the one built from
    // assembly/scan.ts (a test rebuilds it and compares).
    this.x = instance.exports as unknown as ScanExports;
    const base = this.x.heapBase();
    this.stack = base;
    this.spans = base + STACK_BYTES;
    this.out = this.spans + SPAN_BYTES;
    this.outEnd = this.out + OUT_BYTES;
    this.ids = this.outEnd;
    this.input = this.ids + IDS_BYTES;
    this.ensure(1 << 20);
  }

  /** Makes room for `length` input bytes; returns the memory as a Buffer (valid until the next call). */
  ensure(length: number): Buffer {
    const need = this.input + length + SLACK;
    const memory = this.x.memory;
    if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
    if (this.bytes === undefined || this.bytes.buffer !== memory.buffer) {
      this.bytes = Buffer.from(memory.buffer);
      this.words = new Uint32Array(memory.buffer);
    }
    return this.bytes;
  }

  /**
   * Scans the whole lines in memory `[start, end)` (input area; the byte before `end` must be
   * `\n`), calling
   * `onLine(word)` with the index in {@link words} of each record the scanner wrote (codes
   * Fallback, Slow, User, Assistant), in line order. Returns the counts of all lines and of
   * MessageOther lines.
   */
  scan(start: number, end: number, onLine: (word: number) => void): { lines: number; messages: number } {
    const x = this.x;
    let p = start;
    let lines = 0;
    let messages = 0;
    while (p < end) {
      p = x.scanLines(p, end, this.out, this.outEnd, this.stack, this.spans);
      lines += x.lines();
      messages += x.messages();
      const words = this.words;
      const stop = (this.out + x.outBytes()) >>> 2;
      let k = this.out >>> 2;
      while (k < stop) {
        onLine(k);
        k += (words[k + 2] as number) >= LineCode.User ? 11 + 3 * (words[k + 10] as number) : 3;
      }
    }
    return { lines, messages };
  }

  /**
   * The open scanner (`scanEntries` of `assembly/scan.ts`) over the whole lines of memory
   * `[start, end)`: calls `onRecords(from, to, ids, idsEnd)` with the range of
   * {@link memoryWords} that holds the next lines' eight-word records, in line order (see
   * `read/open-scan.ts` for the layout), and the range of {@link memoryBytes} that holds
   * their copied ids. Batches, not a call per line: the caller's loop keeps its arrays in
   * locals.
   */
  scanEntries(
    start: number,
    end: number,
    onRecords: (from: number, to: number, ids: number, idsEnd: number) => void,
  ): void {
    const x = this.x;
    let p = start;
    while (p < end) {
      p = x.scanEntries(p, end, this.out, this.outEnd, this.stack, this.ids, this.ids + IDS_BYTES);
      onRecords(this.out >>> 2, (this.out + x.outBytes()) >>> 2, this.ids, this.ids + x.idBytes());
    }
  }

  /** The memory as u32 words (valid until the next {@link ensure}). */
  get memoryWords(): Uint32Array {
    return this.words;
  }

  /** The memory as bytes (valid until the next {@link ensure}). */
  get memoryBytes(): Buffer {
    return this.bytes;
  }

  /** The text of the JSON string whose content is `[start, end)` with span `flags`. */
  text(start: number, end: number, flags: number): string {
    const b = this.bytes;
    if (flags & F_ESCAPED) return JSON.parse(b.toString("utf8", start - 1, end + 1)) as string;
    return b.toString(flags & F_NON_ASCII ? "utf8" : "latin1", start, end);
  }

  /**
   * Feeds the User/Assistant record at word `k` into `state`: what `applyRecord` does with the
   * entry listing reads from such a line (its `type`, `timestamp` when a string, and a message
   * with `role`, `content` when present — the string, or the text blocks, or another value —
   * and `timestamp` when a number), without building that entry. (The scanner leaves a line
   * whose entry `timestamp` is present, not a string and read by pi to the codec path.)
   */
  applyMessage(state: InfoState, k: number): void {
    const w = this.words;
    state.messageCount++;
    const kind = w[k + 9];
    // Without a `content` key a message has neither an activity time nor a text.
    if (kind === C_ABSENT) return;
    let t: number | undefined;
    // A JSON number's digits read by Number() give the double JSON.parse gives.
    if (w[k + 8]) t = Number(this.bytes.toString("latin1", w[k + 6] as number, w[k + 7] as number));
    else if (w[k + 5]) {
      const iso = this.text(w[k + 3] as number, w[k + 4] as number, w[k + 5] as number);
      const ms = new Date(iso).getTime();
      if (!Number.isNaN(ms)) {
        t = ms;
        if (zoneDependentTime(iso)) state.zoneDependent = true;
      }
    }
    if (t !== undefined) state.lastActivity = Math.max(state.lastActivity ?? 0, t);
    let text = "";
    if (kind === C_STRING) text = this.text(w[k + 11] as number, w[k + 12] as number, w[k + 13] as number);
    else if (kind === C_ARRAY) {
      // The text blocks' texts joined by a space (a null or missing text is "").
      const n = w[k + 10] as number;
      for (let j = 0; j < n; j++) {
        const q = k + 11 + 3 * j;
        const flags = w[q + 2] as number;
        const part = flags & F_NULL ? "" : this.text(w[q] as number, w[q + 1] as number, flags);
        text = j === 0 ? part : `${text} ${part}`;
      }
    }
    if (!text) return;
    addMessageText(state, text, w[k + 2] === LineCode.User);
  }
}

let shared: LineScanner | null | undefined;

/** This thread's scanner, or null when WebAssembly (with SIMD) is not available or turned off. */
export function lineScanner(): LineScanner | null {
  if (shared === undefined) {
    shared = null;
    if (wasm && process.env.PI_SESSION_NO_WASM !== "1") {
      try {
        shared = new LineScanner(wasm, new wasm.Module(Buffer.from(SCAN_WASM_BASE64, "base64")));
      } catch {
        // No SIMD (or no memory): the codec path serves.
      }
    }
  }
  return shared;
}
