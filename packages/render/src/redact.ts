/**
 * Redaction for sharing: removes secrets from every string of a session (message text, tool
 * arguments and output, details, extension data, the header) and drops thinking signatures,
 * counting what it removed by kind. Use it before rendering or writing a session someone else
 * will read; the result has the same shape (key order kept), with each secret replaced by
 * `[REDACTED:<kind>]`.
 *
 * What counts as a secret is a {@link SecretDetector}'s answer: where the secrets of a text
 * are, and their kinds. Node callers pass the one every part of pi-session shares
 * (`secretDetector()` of `@pi-session/search`: secretlint's maintained rule set and the context
 * rules below). Without one, the pure default runs here (browsers, workers): the rules of
 * {@link DEFAULT_REDACTION_RULES}, heuristics that find the API keys and tokens of common
 * providers by their published shapes, private key blocks, bearer and basic credentials,
 * passwords in URLs, and `.env`-style or JSON assignments to secret-looking names. A secret in
 * no known shape stays unless a caller's pattern finds it, and a harmless string shaped like a
 * secret is redacted.
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import { createRenderSession, type RenderSession } from "./source.js";

export interface RedactionRule {
  /** What the rule finds; the count key and the marker (`[REDACTED:<kind>]`). */
  kind: string;
  /**
   * A global regular expression. With named groups `pre` / `post`, those parts of the match
   * are kept; with a named group `secret`, only it is replaced.
   */
  pattern: RegExp;
  /** Substrings of which at least one must occur for the rule to run (a cheap pre-check). */
  hints?: readonly string[];
  /** The hints are lower case and compared with the text in lower case. */
  hintsIgnoreCase?: boolean;
}

/**
 * Rules that find a secret by what surrounds it rather than by a provider's token format: a
 * JWT, a bearer or basic credential, a password in a URL, a secret-named assignment in a
 * `.env` file, a shell or a JSON/YAML config. No provider preset carries these; the shared
 * Node detector adds them to secretlint's rules, and the pure default ends with them.
 */
export const CONTEXT_REDACTION_RULES: readonly RedactionRule[] = [
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    hints: ["eyJ"],
  },
  {
    kind: "bearer",
    pattern: /(?<pre>\b[Bb]earer\s+)(?<secret>[A-Za-z0-9._~+/-]{12,}=*)/g,
    hints: ["earer"],
  },
  {
    kind: "basic-auth",
    pattern: /(?<pre>\bBasic\s+)(?<secret>[A-Za-z0-9+/]{16,}={0,2})/g,
    hints: ["Basic"],
  },
  {
    kind: "url-password",
    pattern: /(?<pre>\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/"'`]+:)(?<secret>[^\s@/"'`]+)(?<post>@)/gi,
    hints: ["://"],
  },
  {
    // .env files and shell: NAME=value where NAME says it is a secret.
    kind: "assignment",
    pattern:
      /(?<pre>^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*[ \t]*=[ \t]*)(?!\[REDACTED)(?<secret>"[^"\n]+"|'[^'\n]+'|[^\s#"']+)/gm,
    hints: ["="],
  },
  {
    // JSON and YAML configs: "apiKey": "value", client_secret: value. The match starts at the
    // secret-looking word, so a name's prefix (OPENAI_, client_) stays as it is.
    kind: "assignment",
    pattern:
      /(?<pre>(?:api[_-]?key|secret|passw(?:or)?d|access[_-]?token|refresh[_-]?token|auth[_-]?token|private[_-]?key)[A-Za-z0-9_-]*["']?[ \t]*[:=][ \t]*["']?)(?!\[REDACTED)(?<secret>[A-Za-z0-9+/_.~!@#$%^&*=-]{8,})/gi,
    hints: ["key", "secret", "passw", "token"],
    hintsIgnoreCase: true,
  },
];

/**
 * The pure default, in order (specific shapes before generic ones): the common providers'
 * token formats, private key blocks, then {@link CONTEXT_REDACTION_RULES}.
 */
export const DEFAULT_REDACTION_RULES: readonly RedactionRule[] = [
  {
    kind: "private-key",
    pattern:
      /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)/g,
    hints: ["PRIVATE KEY"],
  },
  { kind: "anthropic", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, hints: ["sk-ant-"] },
  { kind: "openrouter", pattern: /\bsk-or-v1-[A-Za-z0-9]{32,}/g, hints: ["sk-or-"] },
  {
    kind: "openai",
    pattern:
      /\bsk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}/g,
    hints: ["sk-"],
  },
  {
    kind: "github",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    hints: ["gh", "github_pat_"],
  },
  { kind: "gitlab", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, hints: ["glpat-"] },
  {
    kind: "aws",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g,
    hints: ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"],
  },
  {
    kind: "google",
    pattern: /\b(?:AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,})/g,
    hints: ["AIza", "ya29.", "GOCSPX-"],
  },
  {
    kind: "slack",
    pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g,
    hints: ["xox", "hooks.slack.com"],
  },
  {
    kind: "stripe",
    pattern: /\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{20,})/g,
    hints: ["_live_", "_test_", "whsec_"],
  },
  { kind: "huggingface", pattern: /\bhf_[A-Za-z0-9]{30,}/g, hints: ["hf_"] },
  { kind: "npm", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, hints: ["npm_"] },
  { kind: "groq", pattern: /\bgsk_[A-Za-z0-9]{40,}/g, hints: ["gsk_"] },
  { kind: "xai", pattern: /\bxai-[A-Za-z0-9]{40,}/g, hints: ["xai-"] },
  ...CONTEXT_REDACTION_RULES,
];

/** Keys whose values are ids the tree is built from; never redacted. */
const STRUCTURAL_KEYS = new Set([
  "id",
  "parentId",
  "targetId",
  "fromId",
  "firstKeptEntryId",
  "toolCallId",
  "type",
]);

/** Thinking and text signatures: opaque provider blobs, dropped by redaction. */
export const SIGNATURE_KEYS: readonly string[] = ["thinkingSignature", "thoughtSignature", "textSignature"];

/** One secret a detector found in a text: `[start, end)` code-unit offsets, and its kind. */
export interface SecretMatch {
  kind: string;
  start: number;
  end: number;
}

/**
 * Where the secrets of a text are. Pure and synchronous; may return matches in any order and
 * overlapping (redaction keeps, of overlapping matches, the one that starts first, else the
 * longer, else the one found first).
 */
export type SecretDetector = (text: string) => readonly SecretMatch[];

/** A rule's pattern with match indices (`d`), so a `secret` group's place is known. */
function withIndices(pattern: RegExp): RegExp {
  const flags = `${pattern.flags}${pattern.global ? "" : "g"}${pattern.hasIndices ? "" : "d"}`;
  return flags === pattern.flags ? pattern : new RegExp(pattern.source, flags);
}

/**
 * The detector of a list of rules: each rule's matches (its `secret` group when it has one,
 * else the match), a rule run only when one of its hints occurs in the text.
 */
export function ruleDetector(rules: readonly RedactionRule[]): SecretDetector {
  const compiled = rules.map((rule) => ({ ...rule, pattern: withIndices(rule.pattern) }));
  return (text) => {
    const found: SecretMatch[] = [];
    let lower: string | undefined;
    for (const rule of compiled) {
      if (rule.hints) {
        if (rule.hintsIgnoreCase) lower ??= text.toLowerCase();
        const haystack = rule.hintsIgnoreCase ? (lower as string) : text;
        if (!rule.hints.some((hint) => haystack.includes(hint))) continue;
      }
      const pattern = rule.pattern;
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        if (m[0] === "") {
          pattern.lastIndex++;
          continue;
        }
        const span = m.indices?.groups?.secret ?? m.indices?.[0];
        if (span === undefined || span[0] === span[1]) continue;
        found.push({ kind: rule.kind, start: span[0], end: span[1] });
      }
    }
    return found;
  };
}

/** The matches to replace: of overlapping ones, the one that starts first, else the longer, else the first found. */
export function separateMatches(matches: readonly SecretMatch[]): SecretMatch[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretMatch[] = [];
  for (const m of sorted) {
    const last = out[out.length - 1];
    if (last && m.start < last.end) continue;
    out.push(m);
  }
  return out;
}

const MARKER_START = "[REDACTED:";

/** The marker that stands for a secret of `kind` in redacted text. */
export function redactionMarker(kind: string): string {
  return `${MARKER_START}${kind}]`;
}

export interface RedactOptions {
  /**
   * What finds secrets (default: {@link DEFAULT_REDACTION_RULES}, pure). Node callers pass
   * `secretDetector()` of `@pi-session/search`, the rules every part of pi-session shares.
   */
  detector?: SecretDetector;
  /** Rules to use instead of {@link DEFAULT_REDACTION_RULES} (when no `detector` is given). */
  rules?: readonly RedactionRule[];
  /** More patterns (kind `pattern`); strings are compiled as regular expressions. */
  patterns?: readonly (RegExp | string)[];
  /**
   * Keep `thinkingSignature` / `thoughtSignature` / `textSignature` as they are (default: drop
   * them). Kept, they are not searched either: opaque provider blobs, whose text only looks
   * like a secret by chance.
   */
  keepSignatures?: boolean;
  /** Told each text that holds secrets, with them (in text order), as it is redacted. */
  onSecrets?: (text: string, matches: readonly SecretMatch[]) => void;
}

/** What a redaction removed: counts by kind (`openai`, `private-key`, ..., `signature`). */
export interface RedactionReport {
  counts: Record<string, number>;
  total: number;
}

/** A caller's pattern as a global regular expression; throws a clear error for bad ones. */
export function compilePattern(pattern: RegExp | string): RegExp {
  let re: RegExp;
  // `d` (match indices) tells where a `secret` group sits inside the match.
  if (typeof pattern === "string") {
    try {
      re = new RegExp(pattern, "gd");
    } catch (error) {
      throw new Error(`redaction pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`);
    }
  } else {
    const flags = `${pattern.flags}${pattern.global ? "" : "g"}${pattern.hasIndices ? "" : "d"}`;
    re = new RegExp(pattern.source, flags);
  }
  // A pattern that matches the empty string would "redact" between every two characters.
  if (new RegExp(re.source, re.flags.replace("g", "").replace("d", "")).test("")) {
    throw new Error(`redaction pattern ${JSON.stringify(re.source)} matches the empty string`);
  }
  return re;
}

/**
 * Applies a detector to strings and JSON values, keeping a running count. One redactor per
 * export: its {@link report} covers everything it has seen.
 */
export class Redactor {
  readonly #detectors: SecretDetector[];
  readonly #dropSignatures: boolean;
  readonly #onSecrets: RedactOptions["onSecrets"];
  readonly #counts = new Map<string, number>();

  constructor(options: RedactOptions = {}) {
    this.#detectors = [options.detector ?? ruleDetector(options.rules ?? DEFAULT_REDACTION_RULES)];
    const patterns = (options.patterns ?? []).map((pattern) => ({
      kind: "pattern",
      pattern: compilePattern(pattern),
    }));
    if (patterns.length > 0) this.#detectors.push(ruleDetector(patterns));
    this.#dropSignatures = options.keepSignatures !== true;
    this.#onSecrets = options.onSecrets;
  }

  #count(kind: string, n = 1): void {
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + n);
  }

  /**
   * The secrets of `text`, each once (see {@link separateMatches}), in text order. A match
   * that holds a marker is no secret (`"[REDACTED:openai]"` after an assignment, a redacted
   * password in a URL): redacted text has nothing left to find.
   */
  find(text: string): SecretMatch[] {
    const all: SecretMatch[] = [];
    for (const detect of this.#detectors)
      for (const m of detect(text)) if (!text.slice(m.start, m.end).includes(MARKER_START)) all.push(m);
    return separateMatches(all);
  }

  /** `text` with every secret replaced by `[REDACTED:<kind>]`. */
  text(text: string): string {
    const matches = this.find(text);
    if (matches.length === 0) return text;
    this.#onSecrets?.(text, matches);
    let out = "";
    let last = 0;
    for (const m of matches) {
      out += text.slice(last, m.start) + redactionMarker(m.kind);
      last = m.end;
      this.#count(m.kind);
    }
    return out + text.slice(last);
  }

  /**
   * A JSON value with its strings redacted and signature keys dropped. Objects and arrays that
   * change are copied (key order kept); unchanged parts are returned as they are.
   */
  value<T>(value: T): T {
    return this.#value(value) as T;
  }

  // Iterative (a message can be nested 100,000 deep), copying only what changes.
  #value(root: unknown): unknown {
    if (typeof root === "string") return this.text(root);
    if (typeof root !== "object" || root === null) return root;
    interface Frame {
      source: Record<string, unknown> | unknown[];
      /** Keys of an object; undefined for an array. */
      keys: string[] | undefined;
      next: number;
      copy: Record<string, unknown> | unknown[] | undefined;
    }
    const frame = (source: object): Frame => ({
      source: source as Frame["source"],
      keys: Array.isArray(source) ? undefined : Object.keys(source),
      next: 0,
      copy: undefined,
    });
    const copyOf = (f: Frame) => {
      f.copy ??= Array.isArray(f.source) ? f.source.slice() : { ...f.source };
      return f.copy as Record<string | number, unknown>;
    };
    const stack: Frame[] = [frame(root)];
    let returned: { value: unknown } | undefined;
    for (;;) {
      const f = stack[stack.length - 1] as Frame;
      const source = f.source as Record<string | number, unknown>;
      if (returned !== undefined) {
        const key = f.keys ? (f.keys[f.next - 1] as string) : f.next - 1;
        if (returned.value !== source[key]) copyOf(f)[key] = returned.value;
        returned = undefined;
      }
      const length = f.keys ? f.keys.length : (f.source as unknown[]).length;
      if (f.next >= length) {
        stack.pop();
        const out = f.copy ?? f.source;
        if (stack.length === 0) return out;
        returned = { value: out };
        continue;
      }
      const key = f.keys ? (f.keys[f.next] as string) : f.next;
      f.next++;
      const item = source[key];
      if (f.keys && SIGNATURE_KEYS.includes(key as string)) {
        if (this.#dropSignatures) {
          delete copyOf(f)[key];
          this.#count("signature");
        }
        continue;
      }
      if (typeof item === "string") {
        if (f.keys && STRUCTURAL_KEYS.has(key as string)) continue;
        const next = this.text(item);
        if (next !== item) copyOf(f)[key] = next;
      } else if (typeof item === "object" && item !== null) stack.push(frame(item));
    }
  }

  /** Counts by kind so far, kinds sorted by name. */
  get report(): RedactionReport {
    const counts: Record<string, number> = {};
    let total = 0;
    for (const kind of [...this.#counts.keys()].sort()) {
      const n = this.#counts.get(kind) as number;
      counts[kind] = n;
      total += n;
    }
    return { counts, total };
  }
}

/** A copy of `session` with its header and entries redacted, and what was removed. */
export function redactSession(
  session: RenderSession,
  options: RedactOptions = {},
): { session: RenderSession; report: RedactionReport } {
  const redactor = new Redactor(options);
  const header = session.header === undefined ? undefined : redactor.value<SessionHeader>(session.header);
  const entries = session.entries.map((entry) => redactor.value<AnyEntry>(entry));
  const changed = entries.some((entry, i) => entry !== session.entries[i]);
  return {
    session: createRenderSession({
      header,
      entries,
      formatVersion: session.formatVersion,
      diagnostics: session.diagnostics,
      ...(changed ? {} : { index: session.index }),
    }),
    report: redactor.report,
  };
}
