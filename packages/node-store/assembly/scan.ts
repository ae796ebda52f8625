// The listing line scanner, in AssemblyScript (compiled to WebAssembly by
// `scripts/build-wasm.mjs`; the module is embedded in `src/scan-wasm.ts`).
//
// Listing needs little from most lines of a session: whether the line is a JSON object, and
// whether its top-level `type` is "message". Proving that with JSON.parse costs most of a
// cold listing, so this scanner validates lines itself, 32 bytes at a time inside strings,
// and sorts them:
//
// - OTHER: a valid JSON object of a type listing ignores (or with no string `type`);
// - MSG_OTHER: a valid "message" entry whose role is not "user" or "assistant": only counted;
// - USER / ASSISTANT: a valid user or assistant message: the record written to `out` carries
//   the spans of what listing reads (timestamps, content text), so the caller never parses
//   the rest of the line (tool calls, thinking, ...);
// - SLOW: a valid header or `session_info` line, for the caller's exact JSON.parse path;
// - FALLBACK: anything the scanner cannot prove valid and understood.
//
// The scanner only has to be right when it does not say FALLBACK: then the caller's exact
// path decides. It says FALLBACK for duplicate or escaped keys that listing reads, for escaped
// `type`/`role` values, for a non-ASCII byte outside a string, for invalid UTF-8 (the codec
// turns such a line into a raw record, which the caller parses as pi does), for text values
// that are neither strings nor null, for too many text blocks, for an entry `timestamp` that
// is not a string where it counts (pi's `new Date` of it), and past a nesting depth of MAX_DEPTH.

const FALLBACK: u32 = 0;
const OTHER: u32 = 1;
const MSG_OTHER: u32 = 2;
const SLOW: u32 = 3;
const USER: u32 = 4;
const ASSISTANT: u32 = 5;

const MAX_DEPTH: i32 = 1000;
const MAX_SPANS: u32 = 1024;
const OBJ: u8 = 1;
const ARR: u8 = 2;

// Which value the scanner is about to read.
const K_NONE: i32 = 0;
const K_TYPE: i32 = 1; // entry.type
const K_MESSAGE: i32 = 2; // entry.message
const K_ETS: i32 = 3; // entry.timestamp
const K_ROLE: i32 = 4; // message.role
const K_CONTENT: i32 = 5; // message.content
const K_MTS: i32 = 6; // message.timestamp
const K_BTYPE: i32 = 7; // content[i].type
const K_BTEXT: i32 = 8; // content[i].text

// Content kinds.
const C_ABSENT: u32 = 0;
const C_STRING: u32 = 1;
const C_ARRAY: u32 = 2;
const C_OTHER: u32 = 3;

// String span flags.
const F_PRESENT: u32 = 1;
const F_ESCAPED: u32 = 2;
const F_NON_ASCII: u32 = 4;
const F_NULL: u32 = 8; // a text block whose text is null (or missing)

let pos: usize = 0;
let escaped: bool = false;
let nonAscii: bool = false;
let stackBase: usize = 0;
let spanBase: usize = 0;

let msgOther: u32 = 0;
let lineCount: u32 = 0;
let written: usize = 0;
let idsWritten: usize = 0;

/** First free byte after the module's own data (16-aligned). */
export function heapBase(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

/** MSG_OTHER lines seen by the last `scanLines` call. */
export function messages(): u32 {
  return msgOther;
}

/** Lines handled by the last `scanLines` call. */
export function lines(): u32 {
  return lineCount;
}

/** Bytes written to `out` by the last `scanLines` or `scanEntries` call. */
export function outBytes(): usize {
  return written;
}

/** Bytes of ids copied to `ids` by the last `scanEntries` call. */
export function idBytes(): usize {
  return idsWritten;
}

@inline function ws(): u32 {
  let c = <u32>load<u8>(pos);
  while (c == 0x20 || c == 0x09 || c == 0x0d) c = <u32>load<u8>(++pos);
  return c;
}

/** Index of the next "\n" at or after p (each line of the region ends with one). */
function lineEnd(p: usize): usize {
  const nl = i8x16.splat(0x0a);
  while (true) {
    const m = i8x16.bitmask(i8x16.eq(v128.load(p), nl));
    if (m != 0) return p + <usize>ctz(m);
    p += 16;
  }
}

/**
 * Scans a string whose opening quote is at pos - 1; leaves pos after the closing quote.
 * Sets `escaped` / `nonAscii`. False when it is not a valid JSON string of valid UTF-8.
 */
function str(): bool {
  escaped = false;
  nonAscii = false;
  let p = pos;
  const quote = i8x16.splat(0x22);
  const bslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  while (true) {
    // 32 bytes at a time until a quote, a backslash, a control byte or a non-ASCII byte. A
    // signed compare with 0x20 catches both of the last two: bytes >= 0x80 are negative.
    let m: i32 = 0;
    while (true) {
      const v = v128.load(p);
      const w = v128.load(p, 16);
      const sv = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, bslash)), i8x16.lt_s(v, space));
      const sw = v128.or(v128.or(i8x16.eq(w, quote), i8x16.eq(w, bslash)), i8x16.lt_s(w, space));
      if (v128.any_true(v128.or(sv, sw))) {
        m = i8x16.bitmask(sv) | (i8x16.bitmask(sw) << 16);
        break;
      }
      p += 32;
    }
    p += <usize>ctz(m);
    const c = <u32>load<u8>(p);
    if (c == 0x22) {
      pos = p + 1;
      return true;
    }
    if (c == 0x5c) {
      escaped = true;
      const d = <u32>load<u8>(p + 1);
      if (d == 0x75) {
        for (let k: usize = 2; k < 6; k++) {
          const h = <u32>load<u8>(p + k);
          const l = h | 0x20;
          if (!(h - 0x30 < 10 || l - 0x61 < 6)) return false;
        }
        p += 6;
      } else if (
        d == 0x22 || d == 0x5c || d == 0x2f || d == 0x62 || d == 0x66 || d == 0x6e || d == 0x72 || d == 0x74
      ) {
        p += 2;
      } else return false;
      continue;
    }
    if (c < 0x80) return false; // a control byte (the line's "\n" included)
    // One well-formed UTF-8 sequence, as a fatal TextDecoder accepts it.
    nonAscii = true;
    const c1 = <u32>load<u8>(p + 1);
    if (c < 0xc2) return false;
    if (c < 0xe0) {
      if ((c1 & 0xc0) != 0x80) return false;
      p += 2;
      continue;
    }
    const c2 = <u32>load<u8>(p + 2);
    if (c < 0xf0) {
      if (c == 0xe0) {
        if (c1 < 0xa0 || c1 > 0xbf) return false;
      } else if (c == 0xed) {
        if (c1 < 0x80 || c1 > 0x9f) return false;
      } else if ((c1 & 0xc0) != 0x80) return false;
      if ((c2 & 0xc0) != 0x80) return false;
      p += 3;
      continue;
    }
    if (c < 0xf5) {
      const c3 = <u32>load<u8>(p + 3);
      if (c == 0xf0) {
        if (c1 < 0x90 || c1 > 0xbf) return false;
      } else if (c == 0xf4) {
        if (c1 < 0x80 || c1 > 0x8f) return false;
      } else if ((c1 & 0xc0) != 0x80) return false;
      if ((c2 & 0xc0) != 0x80 || (c3 & 0xc0) != 0x80) return false;
      p += 4;
      continue;
    }
    return false;
  }
}

@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

/** A JSON number starting at pos (first byte c); leaves pos after it. */
function number(c: u32): bool {
  let p = pos;
  if (c == 0x2d) c = <u32>load<u8>(++p);
  if (c == 0x30) c = <u32>load<u8>(++p);
  else if (c - 0x31 < 9) {
    do c = <u32>load<u8>(++p);
    while (isDigit(c));
  } else return false;
  if (c == 0x2e) {
    c = <u32>load<u8>(++p);
    if (!isDigit(c)) return false;
    do c = <u32>load<u8>(++p);
    while (isDigit(c));
  }
  if ((c | 0x20) == 0x65) {
    c = <u32>load<u8>(++p);
    if (c == 0x2b || c == 0x2d) c = <u32>load<u8>(++p);
    if (!isDigit(c)) return false;
    do c = <u32>load<u8>(++p);
    while (isDigit(c));
  }
  pos = p;
  return true;
}

/** `true`, `false` or `null` at pos; leaves pos after it. */
function literal(c: u32): bool {
  const p = pos;
  if (c == 0x74) {
    if (load<u32>(p) != 0x65757274) return false; // "true"
    pos = p + 4;
    return true;
  }
  if (c == 0x66) {
    if (load<u32>(p + 1) != 0x65736c61) return false; // "alse"
    pos = p + 5;
    return true;
  }
  if (c == 0x6e) {
    if (load<u32>(p) != 0x6c6c756e) return false; // "null"
    pos = p + 4;
    return true;
  }
  return false;
}

// Little-endian words of the names compared below.
const W_TYPE: u32 = 0x65707974; // "type"
const W_TEXT: u32 = 0x74786574; // "text"
const W_ROLE: u32 = 0x656c6f72; // "role"
const W_USER: u32 = 0x72657375; // "user"
const W_MESS: u32 = 0x7373656d; // "mess"
const W_ASSI: u32 = 0x69737361; // "assi"
const W_STAN: u32 = 0x6e617473; // "stan"
const W_SESS: u32 = 0x73736573; // "sess"
const W_TIME: u32 = 0x656d6974; // "time"
const W_STAM: u32 = 0x6d617473; // "stam"
const W_CONT: u32 = 0x746e6f63; // "cont"
const W_ENT: u32 = 0x746e65; // "ent" (+ a zero byte that is never compared)

@inline function isMessage(s: usize, len: usize): bool {
  return len == 7 && load<u32>(s) == W_MESS && (load<u32>(s + 3) >>> 8) == 0x656761; // "age"
}

@inline function isTimestamp(s: usize, len: usize): bool {
  return len == 9 && load<u32>(s) == W_TIME && load<u32>(s + 4) == W_STAM && load<u8>(s + 8) == 0x70;
}

@inline function isContent(s: usize, len: usize): bool {
  return len == 7 && load<u32>(s) == W_CONT && (load<u32>(s + 4) & 0xffffff) == W_ENT;
}

@inline function flagsOf(): u32 {
  return F_PRESENT | (escaped ? F_ESCAPED : 0) | (nonAscii ? F_NON_ASCII : 0);
}

/**
 * Classifies the line starting at `start`; for USER / ASSISTANT the details are left in the
 * globals below and the span area. Leaves pos at the line's "\n" unless it returns FALLBACK.
 */
let eTsS: usize = 0;
let eTsE: usize = 0;
let eTsF: u32 = 0;
let mTsS: usize = 0;
let mTsE: usize = 0;
let mTsF: u32 = 0;
let contentKind: u32 = 0;
let spanCount: u32 = 0;

function scanLine(start: usize): u32 {
  pos = start;
  if (load<u8>(pos) != 0x7b) return FALLBACK;
  let depth: i32 = 0;
  let pendingKey = K_NONE;
  let inMsg = false;
  let inContent = false;
  let inBlock = false;
  let seen1: u32 = 0; // bits: type, message, timestamp at depth 1
  let seen2: u32 = 0; // bits: role, content, timestamp in the message
  let seen4: u32 = 0; // bits: type, text in a content block
  let typeS: usize = 0;
  let typeLen: usize = 0;
  let typeIsStr = false;
  let roleS: usize = 0;
  let roleLen: usize = 0;
  let roleIsStr = false;
  let blockIsText = false;
  let textS: usize = 0;
  let textE: usize = 0;
  let textF: u32 = 0;
  let badText = false; // a text value the caller could not rebuild without JSON.parse
  let eTsOther = false; // entry.timestamp is present and not a string
  eTsF = 0;
  mTsF = 0;
  contentKind = C_ABSENT;
  spanCount = 0;
  let expectValue = true;
  while (true) {
    let c = ws();
    if (expectValue) {
      const vk = pendingKey;
      pendingKey = K_NONE;
      if (c == 0x7b || c == 0x5b) {
        if (++depth > MAX_DEPTH) return FALLBACK;
        const isObj = c == 0x7b;
        store<u8>(stackBase + <usize>depth, isObj ? OBJ : ARR);
        if (vk == K_MESSAGE) inMsg = isObj;
        else if (vk == K_ETS) eTsOther = true;
        else if (vk == K_CONTENT) {
          contentKind = isObj ? C_OTHER : C_ARRAY;
          inContent = !isObj;
        } else if (vk == K_BTEXT) badText = true;
        else if (inContent && depth == 4 && isObj) {
          inBlock = true;
          seen4 = 0;
          blockIsText = false;
          textF = 0;
        }
        pos++;
        c = ws();
        if (c == (isObj ? 0x7d : 0x5d)) {
          pos++;
          if (depth == 2) inMsg = false;
          else if (depth == 3) inContent = false;
          else if (depth == 4) inBlock = false; // an empty block has no text
          if (--depth == 0) break;
          expectValue = false;
          continue;
        }
        if (!isObj) continue; // the array's first value
        // on to the object's first key
      } else {
        if (c == 0x22) {
          const s = ++pos;
          if (!str()) return FALLBACK;
          const e = pos - 1;
          if (vk == K_TYPE) {
            if (escaped) return FALLBACK;
            typeS = s;
            typeLen = e - s;
            typeIsStr = true;
          } else if (vk == K_ROLE) {
            if (escaped) return FALLBACK;
            roleS = s;
            roleLen = e - s;
            roleIsStr = true;
          } else if (vk == K_ETS) {
            eTsS = s;
            eTsE = e;
            eTsF = flagsOf();
          } else if (vk == K_CONTENT) {
            contentKind = C_STRING;
            textS = s;
            textE = e;
            textF = flagsOf();
          } else if (vk == K_BTYPE) {
            if (escaped) badText = true;
            blockIsText = e - s == 4 && load<u32>(s) == W_TEXT;
          } else if (vk == K_BTEXT) {
            textS = s;
            textE = e;
            textF = flagsOf();
          }
        } else if (c == 0x2d || isDigit(c)) {
          const s = pos;
          if (!number(c)) return FALLBACK;
          if (vk == K_MTS) {
            mTsS = s;
            mTsE = pos;
            mTsF = F_PRESENT;
          } else if (vk == K_ETS) eTsOther = true;
          else if (vk == K_CONTENT) contentKind = C_OTHER;
          else if (vk == K_BTEXT) badText = true;
        } else {
          if (!literal(c)) return FALLBACK;
          if (vk == K_ETS) eTsOther = true;
          else if (vk == K_CONTENT) contentKind = C_OTHER;
          else if (vk == K_BTEXT) {
            if (c == 0x6e) textF = F_NULL;
            else badText = true;
          }
        }
        expectValue = false;
        continue;
      }
    } else {
      const kind = load<u8>(stackBase + <usize>depth);
      if (c == 0x2c) {
        pos++;
        expectValue = true;
        if (kind == ARR) continue;
        c = ws();
        // on to the next key
      } else if (c == (kind == OBJ ? 0x7d : 0x5d)) {
        pos++;
        if (depth == 2) inMsg = false;
        else if (depth == 3) inContent = false;
        else if (depth == 4 && inBlock) {
          inBlock = false;
          if (blockIsText) {
            // A text block: its text (a string, or null / missing: "").
            if (spanCount >= MAX_SPANS) badText = true;
            else {
              const at = spanBase + <usize>spanCount * 12;
              store<u32>(at, <u32>textS);
              store<u32>(at, <u32>textE, 4);
              store<u32>(at, textF == 0 ? F_NULL : textF, 8);
              spanCount++;
            }
          }
        }
        if (--depth == 0) break;
        continue;
      } else return FALLBACK;
    }
    // A key of the object at `depth`; pos is at its opening quote (c).
    if (c != 0x22) return FALLBACK;
    const s = ++pos;
    if (!str()) return FALLBACK;
    const len = pos - 1 - s;
    if (depth == 1) {
      if (escaped) return FALLBACK; // it could spell a key read below
      if (len == 4 && load<u32>(s) == W_TYPE) {
        if (seen1 & 1) return FALLBACK;
        seen1 |= 1;
        pendingKey = K_TYPE;
      } else if (isMessage(s, len)) {
        if (seen1 & 2) return FALLBACK;
        seen1 |= 2;
        pendingKey = K_MESSAGE;
      } else if (isTimestamp(s, len)) {
        if (seen1 & 4) return FALLBACK;
        seen1 |= 4;
        pendingKey = K_ETS;
      }
    } else if (depth == 2 && inMsg) {
      if (escaped) return FALLBACK;
      if (len == 4 && load<u32>(s) == W_ROLE) {
        if (seen2 & 1) return FALLBACK;
        seen2 |= 1;
        pendingKey = K_ROLE;
      } else if (isContent(s, len)) {
        if (seen2 & 2) return FALLBACK;
        seen2 |= 2;
        pendingKey = K_CONTENT;
      } else if (isTimestamp(s, len)) {
        if (seen2 & 4) return FALLBACK;
        seen2 |= 4;
        pendingKey = K_MTS;
      }
    } else if (depth == 4 && inBlock) {
      if (escaped) badText = true;
      else if (len == 4) {
        const w = load<u32>(s);
        if (w == W_TYPE) {
          if (seen4 & 1) badText = true;
          seen4 |= 1;
          pendingKey = K_BTYPE;
        } else if (w == W_TEXT) {
          if (seen4 & 2) badText = true;
          seen4 |= 2;
          pendingKey = K_BTEXT;
        }
      }
    }
    if (ws() != 0x3a) return FALLBACK;
    pos++;
    expectValue = true;
  }
  if (ws() != 0x0a) return FALLBACK;
  if (!typeIsStr) return OTHER;
  if (isMessage(typeS, typeLen)) {
    if (!roleIsStr) return MSG_OTHER;
    let code = MSG_OTHER;
    if (roleLen == 4 && load<u32>(roleS) == W_USER) code = USER;
    else if (
      roleLen == 9 &&
      load<u32>(roleS) == W_ASSI &&
      load<u32>(roleS + 4) == W_STAN &&
      load<u8>(roleS + 8) == 0x74
    )
      code = ASSISTANT;
    if (code == MSG_OTHER) return MSG_OTHER;
    if (badText) return FALLBACK;
    // pi reads the entry's timestamp when the message has content and no numeric timestamp;
    // `new Date` of a number, literal, array or object is left to the caller's exact path.
    if (eTsOther && mTsF == 0 && contentKind != C_ABSENT) return FALLBACK;
    if (contentKind == C_STRING) {
      // The string content is the one span.
      store<u32>(spanBase, <u32>textS);
      store<u32>(spanBase, <u32>textE, 4);
      store<u32>(spanBase, textF, 8);
      spanCount = 1;
    } else if (contentKind != C_ARRAY) spanCount = 0;
    return code;
  }
  // "session", "session_info" (and any other type starting with "sess"): the exact path.
  if (typeLen >= 4 && load<u32>(typeS) == W_SESS) return SLOW;
  return OTHER;
}

/**
 * Scans the lines of [start, end): the last byte is "\n", and 32 readable bytes follow `end`.
 * `stack` has MAX_DEPTH + 1 bytes; `spans` has MAX_SPANS * 12 bytes.
 *
 * For each line that is not OTHER or MSG_OTHER it writes to `out` (u32 words):
 *   lineStart, lineEnd, code
 * and for USER / ASSISTANT eight more:
 *   entryTsStart, entryTsEnd, entryTsFlags, msgTsStart, msgTsEnd, msgTsFlags,
 *   contentKind, spanCount
 * then spanCount triples (start, end, flags) of the text spans, in order.
 * Returns where it stopped: `end`, or the start of the first line whose record did not fit
 * before `outEnd` (see `outBytes`, `messages` and `lines` for what the call did).
 */
export function scanLines(
  start: usize,
  end: usize,
  out: usize,
  outEnd: usize,
  stack: usize,
  spans: usize,
): usize {
  stackBase = stack;
  spanBase = spans;
  msgOther = 0;
  lineCount = 0;
  let p = start;
  let o = out;
  while (p < end) {
    const code = scanLine(p);
    const e = code == FALLBACK ? lineEnd(pos > p ? pos : p) : pos;
    if (code == MSG_OTHER) msgOther++;
    else if (code != OTHER) {
      const words: usize = code >= USER ? 11 + <usize>spanCount * 3 : 3;
      if (o + words * 4 > outEnd) break;
      store<u32>(o, <u32>p);
      store<u32>(o, <u32>e, 4);
      store<u32>(o, code, 8);
      if (code >= USER) {
        store<u32>(o, <u32>eTsS, 12);
        store<u32>(o, <u32>eTsE, 16);
        store<u32>(o, eTsF, 20);
        store<u32>(o, <u32>mTsS, 24);
        store<u32>(o, <u32>mTsE, 28);
        store<u32>(o, mTsF, 32);
        store<u32>(o, contentKind, 36);
        store<u32>(o, spanCount, 40);
        memory.copy(o + 44, spanBase, <usize>spanCount * 12);
      }
      o += words * 4;
    }
    lineCount++;
    p = e + 1;
  }
  written = o - out;
  return p;
}

// ---------------------------------------------------------------------------------------------
// The open scanner (`scanEntries`): what `SessionManager.open` needs of each line to index a
// session without parsing it (decision 101). Same validation as `scanLine` (`str`, `number`,
// `literal`, UTF-8, depth), other keys: the top-level `type`, `id`, `parentId` and `message`,
// and the message's `role`. As above it only has to be right when it does not say E_FALLBACK.

const E_FALLBACK: u32 = 0;
const E_ENTRY: u32 = 1;
const E_SLOW: u32 = 2;

// Type codes (0: some other string). The caller's table (`open-scan.ts`) mirrors these.
const T_OTHER: u32 = 0;
const T_MESSAGE: u32 = 1;
const T_THINKING: u32 = 2;
const T_MODEL: u32 = 3;
const T_COMPACTION: u32 = 4;
const T_BRANCH_SUMMARY: u32 = 5;
const T_CUSTOM: u32 = 6;
const T_CUSTOM_MESSAGE: u32 = 7;
const T_LABEL: u32 = 8;
const T_SESSION_INFO: u32 = 9;
const T_SESSION: u32 = 10;
const T_CONTEXT_EDIT: u32 = 11;
const T_USAGE: u32 = 12;

// Parent kinds.
const P_ABSENT: u32 = 0;
const P_NULL: u32 = 1;
const P_STRING: u32 = 2;
const P_PREVIOUS: u32 = 3; // a string equal to the previous line's id
const P_OTHER: u32 = 4; // a number, boolean, object or array

// Role codes: the message is an object whose `role` is this string.
const R_NONE: u32 = 0;
const R_ASSISTANT: u32 = 1;
const R_USER: u32 = 2;
const R_OTHER: u32 = 3;

const S_MESSAGE = memory.data<u8>([109, 101, 115, 115, 97, 103, 101]);
const S_THINKING = memory.data<u8>([
  116, 104, 105, 110, 107, 105, 110, 103, 95, 108, 101, 118, 101, 108, 95, 99, 104, 97, 110, 103, 101,
]);
const S_MODEL = memory.data<u8>([109, 111, 100, 101, 108, 95, 99, 104, 97, 110, 103, 101]);
const S_COMPACTION = memory.data<u8>([99, 111, 109, 112, 97, 99, 116, 105, 111, 110]);
const S_BRANCH_SUMMARY = memory.data<u8>([98, 114, 97, 110, 99, 104, 95, 115, 117, 109, 109, 97, 114, 121]);
const S_CUSTOM = memory.data<u8>([99, 117, 115, 116, 111, 109]);
const S_CUSTOM_MESSAGE = memory.data<u8>([99, 117, 115, 116, 111, 109, 95, 109, 101, 115, 115, 97, 103, 101]);
const S_LABEL = memory.data<u8>([108, 97, 98, 101, 108]);
const S_SESSION_INFO = memory.data<u8>([115, 101, 115, 115, 105, 111, 110, 95, 105, 110, 102, 111]);
const S_SESSION = memory.data<u8>([115, 101, 115, 115, 105, 111, 110]);
const S_CONTEXT_EDIT = memory.data<u8>([99, 111, 110, 116, 101, 120, 116, 95, 101, 100, 105, 116]);
const S_USAGE = memory.data<u8>([117, 115, 97, 103, 101]);
const S_ASSISTANT = memory.data<u8>([97, 115, 115, 105, 115, 116, 97, 110, 116]);
const S_USER = memory.data<u8>([117, 115, 101, 114]);
const S_PARENT_ID = memory.data<u8>([112, 97, 114, 101, 110, 116, 73, 100]);

@inline function same(s: usize, len: usize, lit: usize, litLen: usize): bool {
  return len == litLen && memory.compare(s, lit, len) == 0;
}

function typeCode(s: usize, len: usize): u32 {
  switch (<i32>len) {
    case 5:
      if (same(s, len, S_LABEL, 5)) return T_LABEL;
      if (same(s, len, S_USAGE, 5)) return T_USAGE;
      break;
    case 6:
      if (same(s, len, S_CUSTOM, 6)) return T_CUSTOM;
      break;
    case 7:
      if (same(s, len, S_MESSAGE, 7)) return T_MESSAGE;
      if (same(s, len, S_SESSION, 7)) return T_SESSION;
      break;
    case 10:
      if (same(s, len, S_COMPACTION, 10)) return T_COMPACTION;
      break;
    case 12:
      if (same(s, len, S_MODEL, 12)) return T_MODEL;
      if (same(s, len, S_SESSION_INFO, 12)) return T_SESSION_INFO;
      if (same(s, len, S_CONTEXT_EDIT, 12)) return T_CONTEXT_EDIT;
      break;
    case 14:
      if (same(s, len, S_BRANCH_SUMMARY, 14)) return T_BRANCH_SUMMARY;
      if (same(s, len, S_CUSTOM_MESSAGE, 14)) return T_CUSTOM_MESSAGE;
      break;
    case 21:
      if (same(s, len, S_THINKING, 21)) return T_THINKING;
      break;
  }
  return T_OTHER;
}

// Keys whose values the open scanner reads.
const EK_NONE: i32 = 0;
const EK_TYPE: i32 = 1;
const EK_ID: i32 = 2;
const EK_PARENT: i32 = 3;
const EK_MESSAGE: i32 = 4;
const EK_ROLE: i32 = 5;

// What `entryLine` found (valid when it does not return E_FALLBACK).
let eTypeS: usize = 0;
let eTypeLen: usize = 0;
let eIdS: usize = 0;
let eIdLen: usize = 0;
let eIdNonAscii: bool = false;
let eParentKind: u32 = 0;
let eParentS: usize = 0;
let eParentLen: usize = 0;
let eParentNonAscii: bool = false;
let eRole: u32 = 0;

/** Validates the line at `start` and reads its keys; leaves pos at its "\n" unless E_FALLBACK. */
function entryLine(start: usize): u32 {
  pos = start;
  if (load<u8>(pos) != 0x7b) return E_FALLBACK;
  let depth: i32 = 0;
  let pendingKey = EK_NONE;
  let inMsg = false;
  let seen: u32 = 0; // bits: type, id, parentId, message (depth 1), role (in the message)
  let hasType = false;
  let hasId = false;
  eParentKind = P_ABSENT;
  eRole = R_NONE;
  let expectValue = true;
  while (true) {
    let c = ws();
    if (expectValue) {
      const vk = pendingKey;
      pendingKey = EK_NONE;
      if (c == 0x7b || c == 0x5b) {
        if (++depth > MAX_DEPTH) return E_FALLBACK;
        const isObj = c == 0x7b;
        store<u8>(stackBase + <usize>depth, isObj ? OBJ : ARR);
        if (vk == EK_MESSAGE) inMsg = isObj;
        else if (vk == EK_PARENT) eParentKind = P_OTHER;
        else if (vk == EK_TYPE || vk == EK_ID) return E_FALLBACK;
        pos++;
        c = ws();
        if (c == (isObj ? 0x7d : 0x5d)) {
          pos++;
          if (depth == 2) inMsg = false;
          if (--depth == 0) break;
          expectValue = false;
          continue;
        }
        if (!isObj) continue;
      } else {
        if (c == 0x22) {
          const s = ++pos;
          if (!str()) return E_FALLBACK;
          const len = pos - 1 - s;
          if (vk != EK_NONE && escaped) return E_FALLBACK;
          if (vk == EK_TYPE) {
            eTypeS = s;
            eTypeLen = len;
            hasType = true;
          } else if (vk == EK_ID) {
            eIdS = s;
            eIdLen = len;
            eIdNonAscii = nonAscii;
            hasId = true;
          } else if (vk == EK_PARENT) {
            eParentKind = P_STRING;
            eParentS = s;
            eParentLen = len;
            eParentNonAscii = nonAscii;
          } else if (vk == EK_ROLE) {
            if (same(s, len, S_ASSISTANT, 9)) eRole = R_ASSISTANT;
            else if (same(s, len, S_USER, 4)) eRole = R_USER;
            else eRole = R_OTHER;
          }
        } else if (c == 0x2d || isDigit(c)) {
          if (!number(c)) return E_FALLBACK;
          if (vk == EK_TYPE || vk == EK_ID) return E_FALLBACK;
          if (vk == EK_PARENT) eParentKind = P_OTHER;
        } else {
          if (!literal(c)) return E_FALLBACK;
          if (vk == EK_TYPE || vk == EK_ID) return E_FALLBACK;
          if (vk == EK_PARENT) eParentKind = c == 0x6e ? P_NULL : P_OTHER;
        }
        expectValue = false;
        continue;
      }
    } else {
      const kind = load<u8>(stackBase + <usize>depth);
      if (c == 0x2c) {
        pos++;
        expectValue = true;
        if (kind == ARR) continue;
        c = ws();
      } else if (c == (kind == OBJ ? 0x7d : 0x5d)) {
        pos++;
        if (depth == 2) inMsg = false;
        if (--depth == 0) break;
        continue;
      } else return E_FALLBACK;
    }
    // A key of the object at `depth`; pos is at its opening quote (c).
    if (c != 0x22) return E_FALLBACK;
    const s = ++pos;
    if (!str()) return E_FALLBACK;
    const len = pos - 1 - s;
    if (depth == 1) {
      if (escaped) return E_FALLBACK; // it could spell a key read here
      if (len == 4 && load<u32>(s) == W_TYPE) {
        if (seen & 1) return E_FALLBACK;
        seen |= 1;
        pendingKey = EK_TYPE;
      } else if (len == 2 && load<u16>(s) == 0x6469) {
        if (seen & 2) return E_FALLBACK;
        seen |= 2;
        pendingKey = EK_ID;
      } else if (same(s, len, S_PARENT_ID, 8)) {
        if (seen & 4) return E_FALLBACK;
        seen |= 4;
        pendingKey = EK_PARENT;
      } else if (isMessage(s, len)) {
        if (seen & 8) return E_FALLBACK;
        seen |= 8;
        pendingKey = EK_MESSAGE;
      }
    } else if (depth == 2 && inMsg) {
      if (escaped) return E_FALLBACK;
      if (len == 4 && load<u32>(s) == W_ROLE) {
        if (seen & 16) return E_FALLBACK;
        seen |= 16;
        pendingKey = EK_ROLE;
      }
    }
    if (ws() != 0x3a) return E_FALLBACK;
    pos++;
    expectValue = true;
  }
  if (ws() != 0x0a) return E_FALLBACK;
  if (!hasType || !hasId) return E_FALLBACK;
  return E_ENTRY;
}

/**
 * The id hash of the open: format's `idHash` (FNV-1a, then murmur3's 32-bit finaliser) over
 * the bytes of an ASCII id, which are its UTF-16 code units; `src/read/id-hash.test.ts`
 * holds the two to the same values.
 */
function idHash(s: usize, len: usize): u32 {
  let h: u32 = 0x811c9dc5;
  for (let i: usize = 0; i < len; i++) h = (h ^ <u32>load<u8>(s + i)) * 0x01000193;
  h ^= h >>> 16;
  h *= 0x85ebca6b;
  h ^= h >>> 13;
  h *= 0xc2b2ae35;
  return h ^ (h >>> 16);
}

/**
 * Scans the lines of [start, end) for an open: the last byte is "\n", and 32 readable bytes
 * follow `end`; `stack` has MAX_DEPTH + 1 bytes. Writes eight u32 words per line to `out`:
 *   lineStart, lineEnd ("\n"), info, idStart, idEnd, parentStart, parentEnd, idHash
 * where info = code | type << 4 | parentKind << 12 | role << 16 | idNonAscii << 24 |
 * parentNonAscii << 25 | idCopied << 26 (code E_FALLBACK: only the bounds are meaningful;
 * idHash only for an ASCII id, else 0). An ASCII id that fits is also copied to [ids, idsEnd),
 * one after the other in line order (idCopied; see `idBytes`), so that the caller takes the
 * ids of a batch with one copy. A parent equal to the previous line's id (that line an
 * E_ENTRY) has kind P_PREVIOUS. Returns where it stopped: `end`, or the first line that did
 * not fit before `outEnd` (see `lines`).
 */
export function scanEntries(
  start: usize,
  end: usize,
  out: usize,
  outEnd: usize,
  stack: usize,
  ids: usize,
  idsEnd: usize,
): usize {
  stackBase = stack;
  lineCount = 0;
  let p = start;
  let o = out;
  let d = ids;
  let prevS: usize = 0;
  let prevLen: usize = 0;
  let prevOk = false;
  while (p < end && o + 32 <= outEnd) {
    let code = entryLine(p);
    const e = code == E_FALLBACK ? lineEnd(pos > p ? pos : p) : pos;
    let info: u32 = code;
    if (code == E_ENTRY) {
      const t = typeCode(eTypeS, eTypeLen);
      if (t == T_LABEL || t == T_SESSION_INFO || t == T_SESSION) code = E_SLOW;
      let pk = eParentKind;
      if (pk == P_STRING && prevOk && prevLen == eParentLen && memory.compare(prevS, eParentS, prevLen) == 0)
        pk = P_PREVIOUS;
      let copied: u32 = 0;
      if (code == E_ENTRY && !eIdNonAscii && d + eIdLen <= idsEnd) {
        memory.copy(d, eIdS, eIdLen);
        d += eIdLen;
        copied = 1;
      }
      info =
        code |
        (t << 4) |
        (pk << 12) |
        (eRole << 16) |
        ((eIdNonAscii ? <u32>1 : 0) << 24) |
        ((eParentNonAscii ? <u32>1 : 0) << 25) |
        (copied << 26);
      store<u32>(o, <u32>eIdS, 12);
      store<u32>(o, <u32>(eIdS + eIdLen), 16);
      store<u32>(o, <u32>eParentS, 20);
      store<u32>(o, <u32>(eParentS + eParentLen), 24);
    }
    store<u32>(o, <u32>p);
    store<u32>(o, <u32>e, 4);
    store<u32>(o, info, 8);
    store<u32>(o, code != E_FALLBACK && !eIdNonAscii ? idHash(eIdS, eIdLen) : 0, 28);
    prevOk = code == E_ENTRY;
    prevS = eIdS;
    prevLen = eIdLen;
    o += 32;
    lineCount++;
    p = e + 1;
  }
  written = o - out;
  idsWritten = d - ids;
  return p;
}
