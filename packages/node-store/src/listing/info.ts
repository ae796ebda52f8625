/**
 * `SessionInfo` (pi 1.6.0's listing record) built incrementally from records, so a cached
 * state can be resumed when a file only grew.
 *
 * pi's rules (`buildSessionInfo`): each line is `JSON.parse`d (decoded with U+FFFD for invalid
 * UTF-8, so the codec's raw records are parsed too) and lines that fail or give a falsy value
 * are skipped; the first other value must be a header (`type:"session"`) or the file is
 * skipped (an array, number, string or `true` there is not a header; a header whose `id` is
 * missing or not a string still counts, and its `id` is passed through as is); `name` is the
 * latest `session_info` name, trimmed, an empty one clears it; `messageCount` counts every
 * `message` entry on every branch; `firstMessage` is the text of the first user message with
 * text (text blocks joined by a space) or `"(no messages)"`; `allMessagesText` joins every
 * user/assistant text with spaces; `modified` is the latest user/assistant message time
 * (`message.timestamp` when a number, else `new Date(entry.timestamp)` of whatever type), if
 * positive, else the header time, else the file mtime. Where pi's `new Date` or its joining of
 * texts throws (a JSON object whose own `toString` is not a function), pi drops the whole file
 * and so does this code. Where pi would crash on a malformed entry otherwise (a null `message`,
 * a content that is neither a string nor an array, a null content block, a `session_info` name
 * that is not a string) this code is tolerant instead.
 */
import type { SessionRecord } from "@pi-session/format";
import { messageActivityTimeOrThrow, rawRecordValue, sessionInfoName } from "../read/read.js";
import { objectShaped } from "../read/pi-lines.js";

/** pi's `SessionInfo`, field for field. */
export interface SessionInfo {
  path: string;
  /** The header's `id`; as in pi, a malformed header's non-string (or missing) id is passed through. */
  id: string;
  /** Working directory from the header; `""` if missing. */
  cwd: string;
  /** Latest `session_info` name, trimmed. The key is always set, as in pi (possibly `undefined`). */
  name?: string;
  /** `header.parentSession`. The key is always set, as in pi (possibly `undefined`). */
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  messageCount: number;
  firstMessage: string;
  allMessagesText: string;
}

/** Everything needed to finish (or resume) a `SessionInfo`; plain JSON so it can be cached. */
export interface InfoState {
  /**
   * `undefined`: no JSON value seen yet; `false`: not a session (the first JSON value was not a
   * header, or a later line makes pi's listing throw: nothing after it can change that).
   */
  header?: { id?: unknown; cwd: string; parentSession?: string; timestamp?: unknown } | false;
  messageCount: number;
  firstMessage: string;
  allMessagesText: string;
  /** Number of texts in `allMessagesText` (so an empty first text is joined correctly). */
  textCount: number;
  name?: string;
  lastActivity?: number;
  /**
   * A message time was read from a string other than pi's exact ISO form (or an array, read as
   * its joined string): `new Date` may read it in the local time zone, so the state is not
   * cached (a listing after a change of zone must not answer with the old zone's number).
   */
  zoneDependent?: true;
}

/**
 * Whether `new Date(value)` of an entry time may depend on the time zone (see
 * {@link InfoState.zoneDependent}): a string other than pi's exact ISO form, or an array.
 */
export function zoneDependentTime(value: unknown): boolean {
  return typeof value === "string" ? !isExactIso(value) : Array.isArray(value);
}

export function emptyInfoState(): InfoState {
  return { messageCount: 0, firstMessage: "", allMessagesText: "", textCount: 0 };
}

export function cloneInfoState(s: InfoState): InfoState {
  const c: InfoState = { ...s };
  if (s.header) c.header = { ...s.header };
  return c;
}

/** pi's `extractTextContent`; throws where pi's `join` does (see {@link applyRecord}). */
function extractText(message: { content?: unknown }): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block !== "object" || block === null || (block as { type?: unknown }).type !== "text")
      continue;
    const text = (block as { text?: unknown }).text;
    parts.push(typeof text === "string" ? text : text == null ? "" : String(text));
  }
  return parts.join(" ");
}

/**
 * Marks the state as not a session, for good, and clears what it gathered (so the state does
 * not depend on how far a reader got before it knew).
 */
function reject(state: InfoState): void {
  state.header = false;
  state.messageCount = 0;
  state.firstMessage = "";
  state.allMessagesText = "";
  state.textCount = 0;
  delete state.name;
  delete state.lastActivity;
}

/** Feeds one record into the state (mutates it). */
export function applyRecord(state: InfoState, record: SessionRecord): void {
  if (state.header === false) return;
  if (record.kind === "json") applyEntry(state, record.value);
  else {
    // pi parses every line; a raw record (invalid UTF-8, not an object, not JSON) is skipped
    // only when its text does not parse or parses to a falsy value. After the header only an
    // object can count, and a text not from `{` to `}` is none (not parsed: a million `[]`).
    if (state.header !== undefined && !objectShaped(record.text)) return;
    const value = rawRecordValue(record);
    if (value) applyEntry(state, value as Record<string, unknown>);
  }
}

/** Feeds one parsed line (any truthy JSON value) into the state. */
function applyEntry(state: InfoState, entry: Record<string, unknown>): void {
  if (state.header === undefined) {
    if (entry.type !== "session") {
      reject(state);
      return;
    }
    const header: NonNullable<InfoState["header"]> = {
      id: entry.id,
      cwd: typeof entry.cwd === "string" ? entry.cwd : "",
      timestamp: entry.timestamp,
    };
    if (typeof entry.parentSession === "string") header.parentSession = entry.parentSession;
    state.header = header;
    return;
  }
  if (entry.type === "session_info") {
    const name = sessionInfoName(entry);
    if (name === undefined) delete state.name;
    else state.name = name;
  }
  if (entry.type !== "message") return;
  state.messageCount++;
  let t: number | undefined;
  try {
    t = messageActivityTimeOrThrow(entry);
  } catch {
    // pi's `new Date(entry.timestamp)` threw: its listing skips the file.
    reject(state);
    return;
  }
  if (t !== undefined) {
    state.lastActivity = Math.max(state.lastActivity ?? 0, t);
    const m = entry.message as { timestamp?: unknown };
    if (typeof m.timestamp !== "number" && zoneDependentTime(entry.timestamp)) state.zoneDependent = true;
  }
  const message = entry.message as { role?: unknown; content?: unknown } | null | undefined;
  if (typeof message !== "object" || message === null) return;
  if (typeof message.role !== "string" || !("content" in message)) return;
  if (message.role !== "user" && message.role !== "assistant") return;
  let text: string;
  try {
    text = extractText(message);
  } catch {
    // A text pi's `join` cannot convert to a string: pi's listing skips the file.
    reject(state);
    return;
  }
  if (!text) return;
  state.allMessagesText = state.textCount === 0 ? text : `${state.allMessagesText} ${text}`;
  state.textCount++;
  if (!state.firstMessage && message.role === "user") state.firstMessage = text;
}

/** The digits of `s` from `at` to `end` as a number; -1 if any is not a digit. */
function digits(s: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * The time of a timestamp in pi's exact `YYYY-MM-DDTHH:mm:ss.sssZ` form, in the ranges where
 * `Date.UTC` gives exactly what the engine's date parser gives; `undefined` for anything else.
 * Such a time does not depend on the local time zone, so it may be computed once and cached.
 */
export function isoTimeMs(s: string): number | undefined {
  if (
    s.length !== 24 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 || // T
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 || // .
    s.charCodeAt(23) !== 90 // Z
  ) {
    return undefined;
  }
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const h = digits(s, 11, 13);
  const mi = digits(s, 14, 16);
  const sec = digits(s, 17, 19);
  const ms = digits(s, 20, 23);
  if (
    y >= 1000 &&
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= 31 &&
    h >= 0 &&
    h <= 23 &&
    mi >= 0 &&
    mi <= 59 &&
    sec >= 0 &&
    sec <= 59 &&
    ms >= 0
  ) {
    return Date.UTC(y, mo - 1, d, h, mi, sec, ms);
  }
  return undefined;
}

/**
 * Whether `s` is exactly the ISO string of its own time (`new Date(isoTimeMs(s)).toISOString()`):
 * pi's form, with a day that exists in its month (else `Date.UTC` rolls it over). Computed
 * without `toISOString`, whose first call in a process loads the time zone (~45 ms when it
 * must come from disk, as in a cold listing).
 */
export function isExactIso(s: string): boolean {
  if (isoTimeMs(s) === undefined) return false;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
  return d <= days;
}

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/**
 * `new Date(t).toISOString()` for a time of years 1000–9999 (the times {@link isExactIso}
 * strings parse to), computed without `toISOString` (see there); `undefined` outside them.
 */
export function isoOfTime(t: number): string | undefined {
  if (!Number.isInteger(t)) return undefined;
  const days = Math.floor(t / 86_400_000);
  const ms = t - days * 86_400_000;
  // Civil date of a day count since 1970-01-01 (proleptic Gregorian, 400-year eras).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const mo = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (mo <= 2 ? 1 : 0);
  if (y < 1000 || y > 9999) return undefined;
  const h = Math.floor(ms / 3_600_000);
  const mi = Math.floor((ms % 3_600_000) / 60_000);
  const sec = Math.floor((ms % 60_000) / 1000);
  return `${y}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}.${pad(ms % 1000, 3)}Z`;
}

/**
 * `new Date(value)`, with a fast path for pi's timestamps ({@link isoTimeMs}; parsing the
 * string is ~5 µs, a warm listing's largest per-session cost). Anything else: `new Date`.
 */
export function dateOf(value: unknown): Date {
  if (typeof value === "string") {
    const t = isoTimeMs(value);
    if (t !== undefined) return new Date(t);
  }
  return new Date(value as string);
}

/**
 * `created` and `modified` of a finished state as times, when they do not depend on the local
 * time zone (so they can be cached): the header time is absent or in pi's exact ISO form.
 * `modified` is `undefined` when it is the file's mtime. `undefined` when not computable so.
 */
export function stableInfoTimes(
  state: InfoState,
): { created: number; modified: number | undefined } | undefined {
  const header = state.header;
  if (!header) return undefined;
  const ts = header.timestamp;
  let created: number;
  if (ts === undefined) created = Number.NaN;
  else if (typeof ts === "string") {
    const t = isoTimeMs(ts);
    if (t === undefined) return undefined;
    created = t;
  } else return undefined;
  const last = state.lastActivity;
  // The rules of finishInfoHead, on numbers.
  if (typeof last === "number" && last > 0) return { created, modified: new Date(last).getTime() };
  return { created, modified: ts === undefined ? undefined : created };
}

/** A `SessionInfo` without `allMessagesText` (the caller adds it as the last key). */
export type SessionInfoHead = Omit<SessionInfo, "allMessagesText">;

/**
 * Every field of the `SessionInfo` of a finished state but `allMessagesText`, or null when the
 * file is not a valid session. Reads `state` without keeping or changing it.
 */
export function finishInfoHead(path: string, state: InfoState, mtime: Date): SessionInfoHead | null {
  const header = state.header;
  if (!header) return null;
  let created: Date;
  try {
    created = dateOf(header.timestamp);
  } catch {
    // A header time no `Date` takes (an object whose `toString` is not a function): pi's
    // `new Date` throws there, and its listing skips the file. Not a valid session.
    return null;
  }
  const last = state.lastActivity;
  let modified: Date;
  if (typeof last === "number" && last > 0) modified = new Date(last);
  else {
    // The header time counts only when it is a string (as in pi), parsed once for both fields.
    const headerTime = typeof header.timestamp === "string" ? created.getTime() : Number.NaN;
    modified = !Number.isNaN(headerTime) ? new Date(headerTime) : mtime;
  }
  return {
    path,
    id: header.id as string,
    cwd: header.cwd,
    name: state.name,
    parentSessionPath: header.parentSession,
    created,
    modified,
    messageCount: state.messageCount,
    firstMessage: state.firstMessage || "(no messages)",
  };
}

/** The `SessionInfo` of a finished state, or null when the file is not a valid session. */
export function finishInfo(path: string, state: InfoState, mtime: Date): SessionInfo | null {
  const info = finishInfoHead(path, state, mtime) as SessionInfo | null;
  if (info) info.allMessagesText = state.allMessagesText;
  return info;
}

/** Builds a `SessionInfo` from all the records of a file (no I/O). */
export function sessionInfoFromRecords(
  path: string,
  records: readonly SessionRecord[],
  mtime: Date,
): SessionInfo | null {
  const state = emptyInfoState();
  for (const r of records) applyRecord(state, r);
  return finishInfo(path, state, mtime);
}
