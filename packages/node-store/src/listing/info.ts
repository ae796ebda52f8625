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
import { constants } from "node:buffer";
import { indexRoleOf, type SessionRecord, sessionInfoName } from "@pi-session/format";
import { messageActivityTimeOrThrow } from "../read/entry-fields.js";
import { objectShaped, rawRecordValue } from "@pi-session/format";
import { dateOf, isExactIso, isoTimeMs } from "./iso-time.js";

/** pi's `SessionInfo`, field for field. */
/** The longest `allMessagesText` kept: V8's longest string. */
const MAX_TEXT_LENGTH = constants.MAX_STRING_LENGTH;

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
  if (indexRoleOf(entry.type) === "name") {
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
  addMessageText(state, text, message.role === "user");
}

/**
 * Adds a user or assistant message's text to the state (the first user text is its first
 * message). Past V8's longest string (~512M characters) the texts that do not fit are left
 * out of `allMessagesText`: the session is still listed (pi's own listing drops it with
 * "Invalid string length"). Both readers (this one and the WebAssembly scanner's) use it.
 */
export function addMessageText(state: InfoState, text: string, user: boolean): void {
  if (!state.firstMessage && user) state.firstMessage = text;
  if (state.allMessagesText.length + 1 + text.length > MAX_TEXT_LENGTH) return;
  state.allMessagesText = state.textCount === 0 ? text : `${state.allMessagesText} ${text}`;
  state.textCount++;
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
