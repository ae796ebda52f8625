/**
 * The secret detector every part of pi-session uses (the session database's marks,
 * `pi-session secrets`, the export's and the team sync's redaction, the MCP server): the
 * rules of secretlint's recommended preset (`@secretlint/secretlint-rule-preset-recommend`,
 * maintained with the providers' token formats), run synchronously over a text, and render's
 * context rules (a bearer header, a JWT, a secret-named assignment: secrets found by what
 * surrounds them, which no provider preset carries). Decision 152 says why these and not
 * others, and what it costs.
 *
 * Use {@link secretDetector} once and call it per text; it returns where each secret is, and
 * its kind (`aws`, `github`, `openai`, `privatekey`, ..., `bearer`, `jwt`, `assignment`).
 */
import {
  CONTEXT_REDACTION_RULES,
  type SecretDetector,
  type SecretMatch,
  ruleDetector,
  separateMatches,
} from "@pi-session/render";
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";

/** What a secretlint rule needs of its context here (the rest of secretlint's API is not used). */
interface RuleContext {
  createTranslator(messages: unknown): (messageId: string, data?: Record<string, unknown>) => Translated;
  report(descriptor: { message: Translated; range: readonly [number, number] }): void;
  ignore(): void;
  getSourceFilePath(): undefined;
  sharedOptions: Record<string, unknown>;
}

interface Translated {
  messageId: string;
  data: Record<string, unknown> | undefined;
}

interface PresetRule {
  meta: { id: string };
  create(context: RuleContext, options: Record<string, unknown>): { file?(source: RuleSource): unknown };
}

interface RuleSource {
  content: string;
  contentType: "text";
  filePath: undefined;
  ext: string;
}

/**
 * The rules' options: AWS access key ids are found too (secretlint's default leaves them to a
 * secret access key's assignment, as git-secrets does; in a session an id alone already says
 * which account).
 */
const RULE_OPTIONS: Record<string, Record<string, unknown>> = {
  "@secretlint/secretlint-rule-aws": { enableIDScanRule: true },
};

/** Reports that name no credential: an AWS account id says which account, it opens nothing. */
const SKIPPED_MESSAGES = new Set(["AWSAccountID"]);

/** secretlint-disable comments are for source code: a session's text cannot hide a secret with one. */
const SKIPPED_RULES = new Set(["@secretlint/secretlint-rule-filter-comments"]);

/** A rule's kind: its name without the `@secretlint/secretlint-rule-` prefix. */
function kindOf(ruleId: string): string {
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, "");
}

/**
 * Where the secret of a report is: the reported range, unless the secret the rule names in its
 * message data lies elsewhere in the match (secretlint's AWS secret-key rule reports the
 * assignment's start with the key's length).
 */
function spanOf(text: string, range: readonly [number, number], data: Record<string, unknown> | undefined) {
  const [start, end] = range;
  const value = data
    ? Object.values(data).find((v): v is string => typeof v === "string" && v !== "")
    : undefined;
  if (value === undefined || text.slice(start, end) === value) return { start, end };
  const at = text.indexOf(value, start);
  return at >= 0 && at <= end ? { start: at, end: at + value.length } : { start, end };
}

/**
 * The detector of secretlint's recommended preset alone. Each rule is created once, with a
 * context whose reports go to the text being scanned (a rule keeps nothing between files).
 */
function presetDetector(): SecretDetector {
  let text = "";
  let found: SecretMatch[] = [];
  const scanners = (presetRules as unknown as PresetRule[])
    .filter((r) => !SKIPPED_RULES.has(r.meta.id))
    .map((rule) => {
      const kind = kindOf(rule.meta.id);
      const context: RuleContext = {
        createTranslator: () => (messageId, data) => ({ messageId, data }),
        report: ({ message, range }) => {
          if (!SKIPPED_MESSAGES.has(message.messageId))
            found.push({ kind, ...spanOf(text, range, message.data) });
        },
        ignore: () => {},
        getSourceFilePath: () => undefined,
        sharedOptions: {},
      };
      return rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {});
    });
  return (scanned) => {
    text = scanned;
    found = [];
    const source: RuleSource = { content: scanned, contentType: "text", filePath: undefined, ext: "" };
    // Every rule of the preset scans synchronously for a text without a file path (only the
    // GCP rule's .p12 check is asynchronous, and it needs a file).
    for (const scanner of scanners) scanner.file?.(source);
    return found;
  };
}

/**
 * The detector: secretlint's recommended preset and render's context rules, each secret once.
 * A provider's format names a secret before a context rule does (`OPENAI_API_KEY="sk-..."` is
 * an `openai` key, not an `assignment`); among findings of one kind of rule, the one that
 * starts first, else the longer.
 */
export function secretDetector(): SecretDetector {
  const preset = presetDetector();
  const context = ruleDetector(CONTEXT_REDACTION_RULES);
  return (text) => {
    if (text.length < 8) return [];
    const specific = separateMatches(preset(text));
    const generic = context(text).filter((g) => !specific.some((s) => g.start < s.end && s.start < g.end));
    return separateMatches([...specific, ...generic]);
  };
}
