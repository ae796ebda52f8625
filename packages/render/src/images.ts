/**
 * Which images a renderer may show. Session images are base64 data with a declared MIME type,
 * both untrusted: only raster types a browser decodes without running anything are allowed
 * (no SVG), and the data must be plain base64. Use `safeImage` before putting an image in a
 * page or writing it to a file.
 */
import type { ImageBlock } from "./model/shapes.js";

/** MIME type -> file extension of the images renderers show. */
export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface SafeImage {
  mimeType: string;
  /** File extension without the dot. */
  extension: string;
  /** Decoded size in bytes (from the base64 length). */
  bytes: number;
}

/** The image's type and size when it may be shown, else undefined (the reason: {@link imageProblem}). */
export function safeImage(block: ImageBlock): SafeImage | undefined {
  return imageProblem(block) === undefined
    ? {
        mimeType: block.mimeType.toLowerCase(),
        extension: IMAGE_TYPES[block.mimeType.toLowerCase()] as string,
        bytes: decodedSize(block.data),
      }
    : undefined;
}

/** Why an image may not be shown, or undefined when it may. */
export function imageProblem(block: ImageBlock): string | undefined {
  const type = typeof block.mimeType === "string" ? block.mimeType.toLowerCase() : "";
  if (!(type in IMAGE_TYPES)) return `type ${JSON.stringify(block.mimeType)} is not shown`;
  if (typeof block.data !== "string" || block.data.length === 0) return "no data";
  if (block.data.length % 4 === 1 || !BASE64.test(block.data)) return "data is not base64";
  return undefined;
}

/** Bytes the base64 text decodes to. */
export function decodedSize(base64: string): number {
  const pad = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - pad);
}

/** A `data:` URL of a safe image (check with {@link safeImage} first). */
export function imageDataUrl(block: ImageBlock): string | undefined {
  const safe = safeImage(block);
  return safe ? `data:${safe.mimeType};base64,${block.data}` : undefined;
}

const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64_DIGITS.length; i++) DIGIT_VALUE[BASE64_DIGITS.charCodeAt(i)] = i;

/** Decodes base64 (as checked by {@link safeImage}) to bytes, for writing an image file. */
export function decodeBase64(base64: string): Uint8Array {
  const clean = base64.replace(/=+$/, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let k = 0;
  for (let i = 0; i < clean.length; i++) {
    const code = clean.charCodeAt(i);
    const digit = code < 128 ? (DIGIT_VALUE[code] as number) : -1;
    if (digit < 0) throw new Error(`not base64 at character ${i}`);
    value = (value << 6) | digit;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (value >> bits) & 0xff;
      value &= (1 << bits) - 1;
    }
  }
  return k === out.length ? out : out.subarray(0, k);
}
