/**
 * Bytes and UTF-8: encoding text, decoding a range of bytes as pi's reader does (U+FFFD for
 * invalid sequences), checking and locating invalid UTF-8, and joining byte arrays. Use these
 * wherever this package turns text into bytes or back; they need nothing but the
 * `TextEncoder`/`TextDecoder` every runtime has.
 */

// The package compiles without DOM or Node typings; these globals exist in every runtime
// we target (Node >= 11, browsers, workers). Declared locally so no `lib` change is needed.
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

// Created on first use, so importing the module costs nothing; a TextDecoder called without
// `stream: true` keeps no state, so one instance serves every call.
let encoder: TextEncoder | undefined;
let lenientDecoder: TextDecoder | undefined;
let fatalDecoder: TextDecoder | undefined;

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  encoder ??= new TextEncoder();
  return encoder.encode(text);
}

/** `bytes[start, end)` as text, U+FFFD for invalid sequences, a BOM kept as U+FEFF. */
export function decodeLenient(bytes: Uint8Array, start: number, end: number): string {
  lenientDecoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
  return lenientDecoder.decode(bytes.subarray(start, end));
}

export function isValidUtf8(bytes: Uint8Array): boolean {
  fatalDecoder ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    fatalDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Index of the first byte that starts an invalid UTF-8 sequence, or -1 (for messages only). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let continuation: number;
    let smallest: number;
    if (lead >= 0xc2 && lead <= 0xdf) {
      continuation = 1;
      smallest = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      continuation = 2;
      smallest = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      smallest = 0x10000;
    } else return i;
    let codePoint = lead & (0x3f >> continuation);
    for (let k = 1; k <= continuation; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    // Overlong, beyond Unicode, or a surrogate.
    if (codePoint < smallest || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff))
      return i;
    i += continuation + 1;
  }
  return -1;
}

/** UTF-8 length of `text[0, end)` (the text is well-formed: it was decoded from valid UTF-8). */
export function utf8Length(text: string, end: number): number {
  let length = 0;
  for (let i = 0; i < end; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate pair is 4 bytes, 2 per code unit.
    length += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 2 : 3;
  }
  return length;
}

/** A copy of `bytes[start, end)` (`new Uint8Array(view)` copies, also from a Node `Buffer`). */
export function copyBytes(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(bytes.subarray(start, end));
}

/** The parts joined, in a new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const part of parts) total += part.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
