/**
 * Raw records, as the codec makes them: {@link TextLineRecord}, the record of a malformed line
 * that is valid UTF-8, and {@link rawRecordValue}, what pi's reader would parse from any raw
 * record. Use `rawRecordValue` where a reader must treat a line as pi does (pi parses the
 * U+FFFD-decoded text of every line); the class itself is internal: callers see a `RawRecord`.
 *
 * A `TextLineRecord` keeps only the line's text: its bytes are that text encoded again (with a
 * stripped BOM and CR put back), built when asked for instead of being kept twice
 * (decision 116).
 */
import { isJsonText } from "../json-check.js";
import type { RawRecord, RecordPosition } from "../records.js";

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

/** A malformed line of valid UTF-8: its text (BOM and CR stripped), the diagnostic code and why. */
export interface MalformedLine {
  text: string;
  code: "invalid-json" | "not-an-object";
  reason: string;
}

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

  constructor(position: RecordPosition, line: Pick<MalformedLine, "text" | "reason">, flags: number) {
    this.line = position.line;
    this.offset = position.offset;
    this.byteLength = position.byteLength;
    this.terminated = position.terminated;
    this.text = line.text;
    this.reason = line.reason;
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
