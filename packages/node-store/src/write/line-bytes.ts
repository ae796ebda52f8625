/**
 * Entries as the bytes of their lines: one line per entry (format's serializer), and a shared
 * buffer the appender encodes each line into, so an append allocates nothing per entry beyond
 * its JSON text.
 */
import { type JsonRecord, serializeRecords } from "@pi-session/format";

/**
 * One reusable encode buffer for appends (everything here is synchronous, so no two writes
 * can share it at once): a line is encoded into it and written from it, so an append
 * allocates nothing per entry beyond its JSON text (a fresh `Uint8Array` per entry was a
 * measurable share of the append cost, mostly through GC).
 */
let lineBuf: Buffer = Buffer.allocUnsafe(64 * 1024);
/** Lines longer than this (in UTF-16 units) are encoded into their own buffer. */
const LINE_BUF_MAX = 4 * 1024 * 1024;

/**
 * The bytes of one entry's line (its `serializeLine` text + `\n`, exactly
 * `utf8(serializeEntry(entry))`), as a view that is only valid until the next call.
 */
export function encodeLineShared(json: string): Uint8Array {
  // A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair: 4 bytes for 2 units).
  const worst = json.length * 3 + 1;
  if (worst > lineBuf.length) {
    if (worst > LINE_BUF_MAX) return Buffer.from(`${json}\n`, "utf8");
    lineBuf = Buffer.allocUnsafe(Math.max(worst, lineBuf.length * 2));
  }
  const n = lineBuf.write(json, 0, "utf8");
  lineBuf[n] = 10;
  return lineBuf.subarray(0, n + 1);
}

/** Concatenates entries as file bytes, one line each. */
export function encodeEntries(entries: readonly object[]): Uint8Array {
  return serializeRecords(entries.map(asJsonRecord));
}

export function asJsonRecord(value: object): JsonRecord {
  return {
    kind: "json",
    value: value as Record<string, unknown>,
    line: 0,
    offset: 0,
    byteLength: 0,
    terminated: true,
  };
}
