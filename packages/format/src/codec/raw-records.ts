/**
 * The raw record the codec makes of a malformed line that is valid UTF-8: its bytes are its
 * text encoded again (with a stripped BOM and CR put back), so they are built when asked for
 * instead of being kept twice. A copied `Uint8Array` per line cost about 400 bytes and most of
 * the memory of reading a file of a million broken lines. Internal to this package: callers
 * see a {@link RawRecord}.
 */
import type { RawRecord } from "../records.js";

declare class TextEncoder {
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}

let encoder: TextEncoder | undefined;

/** The line began with a UTF-8 BOM that is not in `text`. */
export const STRIPPED_BOM = 1;
/** The line ended with a CR that is not in `text`. */
export const STRIPPED_CR = 2;
/** The text is not JSON (the codec found it so): it need not be parsed again. */
export const NOT_JSON = 4;

export class TextLineRecord implements RawRecord {
  readonly kind = "raw";
  line: number;
  offset: number;
  byteLength: number;
  terminated: boolean;
  text: string;
  reason: string;
  /** `STRIPPED_BOM | STRIPPED_CR | NOT_JSON` flags. */
  readonly #stripped: number;

  /** Whether `record` is one of these whose text the codec found not to be JSON. */
  static isKnownNotJson(record: RawRecord): boolean {
    return record instanceof TextLineRecord && (record.#stripped & NOT_JSON) !== 0;
  }

  constructor(
    position: { line: number; offset: number; byteLength: number; terminated: boolean },
    text: string,
    reason: string,
    flags: number,
  ) {
    this.line = position.line;
    this.offset = position.offset;
    this.byteLength = position.byteLength;
    this.terminated = position.terminated;
    this.text = text;
    this.reason = reason;
    this.#stripped = flags;
  }

  /** The line's original bytes (a new array on every access). */
  get bytes(): Uint8Array {
    const out = new Uint8Array(this.byteLength);
    let at = 0;
    if (this.#stripped & STRIPPED_BOM) {
      out[0] = 0xef;
      out[1] = 0xbb;
      out[2] = 0xbf;
      at = 3;
    }
    encoder ??= new TextEncoder();
    encoder.encodeInto(this.text, out.subarray(at));
    if (this.#stripped & STRIPPED_CR) out[this.byteLength - 1] = 13;
    return out;
  }

  /** The line as a string whose UTF-8 encoding is exactly {@link bytes}. */
  get sourceText(): string {
    const bom = this.#stripped & STRIPPED_BOM ? "\uFEFF" : "";
    return this.#stripped & STRIPPED_CR ? `${bom}${this.text}\r` : bom + this.text;
  }
}
