/**
 * JSON text of any value, however deep: `JSON.stringify` recurses and throws "Maximum call
 * stack size exceeded" past about 5,000 levels (a message nested 100,000 deep, which
 * `JSON.parse` reads fine), and "Invalid string length" past V8's string limit. Use
 * {@link stringifyJson} where `JSON.stringify` would do (the serializer of session lines uses
 * it), {@link serializeJson} to write a large value in pieces. Pure.
 *
 * The text is `JSON.stringify`'s, byte for byte, wherever that works (same key order,
 * `toJSON`, omitted `undefined`, `null` for non-finite numbers, the same string escapes):
 * `JSON.stringify` is tried first (it is far faster), the iterative serializer here takes over
 * when it runs out of stack or string length.
 */

/** Output is collected into pieces of about this many characters before `write` is called. */
const CHUNK = 1 << 16;

/**
 * Levels indented by {@link serializeJson}; deeper values are written compactly, so a value
 * nested 100,000 deep prints in linear size (indenting every level would make it quadratic).
 * Only used where `JSON.stringify` gave out (at about 5,000 levels), so the output of
 * {@link writeJsonText} is `JSON.stringify`'s wherever that works.
 */
export const MAX_INDENTED_DEPTH = 1000;

type Holder = Record<string, unknown> | unknown[];

/** What `JSON.stringify` serializes for `holder[key]`: after `toJSON`, and wrapper objects unboxed. */
function resolve(value: unknown, key: string): unknown {
  let v = value;
  if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, key);
  }
  if (v instanceof Number) return Number(v);
  if (v instanceof String) return String(v);
  if (v instanceof Boolean) return v.valueOf();
  return v;
}

/** Text of a primitive, or undefined for what JSON leaves out (undefined, functions, symbols). */
function primitive(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt");
    default:
      return value === null ? "null" : undefined;
  }
}

interface Frame {
  holder: Holder;
  keys: string[] | undefined;
  next: number;
  wrote: boolean;
  /** Indentation of the members ("" when written compactly). */
  indent: string;
  /** What goes before each member: `\n` and the indentation, or "" when written compactly. */
  newline: string;
  pretty: boolean;
}

/**
 * Serializes `value` iteratively, handing the text to `write` in pieces; the pieces joined are
 * exactly `JSON.stringify(value, null, indent)` (but for levels below {@link MAX_INDENTED_DEPTH},
 * written compactly). Throws as `JSON.stringify` does on a cycle or a BigInt. Writes nothing
 * for a value `JSON.stringify` turns into `undefined`.
 */
export function serializeJson(value: unknown, write: (piece: string) => void, indent = 0): void {
  const gap = " ".repeat(indent);
  let buffer = "";
  const emit = (text: string) => {
    buffer += text;
    if (buffer.length >= CHUNK) {
      write(buffer);
      buffer = "";
    }
  };
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** Emits a primitive (its `text`), or opens a container; false when the value is left out. */
  const start = (v: unknown, text: string | undefined, parent: Frame | undefined): boolean => {
    if (text !== undefined) {
      emit(text);
      return true;
    }
    if (typeof v !== "object" || v === null) return false;
    if (open.has(v)) throw new TypeError("Converting circular structure to JSON");
    open.add(v);
    const isArray = Array.isArray(v);
    emit(isArray ? "[" : "{");
    const pretty = indent > 0 && (parent?.pretty ?? true) && stack.length < MAX_INDENTED_DEPTH;
    const members = pretty ? (parent?.indent ?? "") + gap : "";
    stack.push({
      holder: v as Holder,
      keys: isArray ? undefined : Object.keys(v),
      next: 0,
      wrote: false,
      indent: members,
      newline: pretty ? `\n${members}` : "",
      pretty,
    });
    return true;
  };
  const top = resolve(value, "");
  if (!start(top, primitive(top), undefined)) return;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const { holder, keys } = frame;
    const length = keys ? keys.length : (holder as unknown[]).length;
    if (frame.next >= length) {
      stack.pop();
      open.delete(holder);
      const outer = frame.indent.slice(0, frame.indent.length - gap.length);
      const end = keys ? "}" : "]";
      emit(frame.wrote && frame.pretty ? `\n${outer}${end}` : end);
      continue;
    }
    const index = frame.next++;
    const prefix = frame.wrote ? `,${frame.newline}` : frame.newline;
    if (keys) {
      const key = keys[index] as string;
      const v = resolve((holder as Record<string, unknown>)[key], key);
      const text = primitive(v);
      if (text === undefined && (typeof v !== "object" || v === null)) continue;
      emit(`${prefix}${JSON.stringify(key)}${frame.pretty ? ": " : ":"}`);
      frame.wrote = true;
      start(v, text, frame);
    } else {
      const v = resolve((holder as unknown[])[index], String(index));
      emit(prefix);
      frame.wrote = true;
      if (!start(v, primitive(v), frame)) emit("null");
    }
  }
  if (buffer !== "") write(buffer);
}

function isOutOfRoom(error: unknown): boolean {
  // Stack overflow ("Maximum call stack size exceeded") or string limit ("Invalid string length").
  return error instanceof RangeError;
}

/** `JSON.stringify(value, null, indent)` at any depth (`undefined` where it gives `undefined`). */
export function stringifyJson(value: unknown, indent = 0): string | undefined {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    if (!isOutOfRoom(error)) throw error;
    const pieces: string[] = [];
    serializeJson(value, (piece) => pieces.push(piece), indent);
    return pieces.length === 0 ? undefined : pieces.join("");
  }
}

/**
 * Writes `JSON.stringify(value, null, indent)` through `write`: in one piece when
 * `JSON.stringify` can make it, else in pieces from the iterative serializer (too deep, or
 * longer than a string can be).
 */
export function writeJsonText(value: unknown, write: (piece: string) => void, indent = 0): void {
  let whole: string | undefined;
  try {
    whole = JSON.stringify(value, null, indent);
  } catch (error) {
    if (!isOutOfRoom(error)) throw error;
    serializeJson(value, write, indent);
    return;
  }
  if (whole !== undefined) write(whole);
}
