/**
 * fast-check arbitraries for the pieces of a pi session file: content blocks, usage,
 * messages of every role, entries of every type and headers. Everything produced is a
 * plain JSON value shaped the way pi writes it (optional keys absent rather than
 * `undefined`, no `-0`, ISO entry timestamps, millisecond message timestamps, 8-hex ids),
 * so `JSON.parse(JSON.stringify(x))` deep-equals `x`.
 *
 * Entry arbitraries produce drafts without `id`/`parentId`; the session builders in
 * `sessions.ts` assign those and point label/compaction/context-edit targets at real ids.
 * One module per kind of piece, in `arbitraries/`.
 */
export type { JsonValue } from "./arbitraries/records.js";
export * from "./arbitraries/values.js";
export * from "./arbitraries/content.js";
export * from "./arbitraries/messages.js";
export * from "./arbitraries/entries.js";
