/**
 * Secrets in a session's values: where each one is (its kind and a masked preview, never the
 * secret), and the value with each secret replaced by render's marker (`[REDACTED:<kind>]`),
 * through render's `Redactor` walk (every string of an entry or header but its tree ids;
 * thinking signatures kept and not searched). Use {@link redactSecrets} per entry, with the one
 * detector of `detector.ts`.
 */
import { Redactor, type SecretDetector, type SecretMatch } from "@pi-session/render";

/** One secret found: its kind and a preview with every secret in it masked. */
export interface SecretFinding {
  kind: string;
  /** The text around it on one line, each secret shown as `‹abcd…(N chars)›` at most. */
  preview: string;
}

/**
 * A secret as a preview shows it: the first 4 characters only of a secret of 20 or more (a
 * provider's prefix, `ghp_`, `sk-a`), none of a shorter one, and its length.
 */
export function maskSecret(secret: string): string {
  const shown = secret.length >= 20 ? secret.slice(0, 4).replace(/\s/g, " ") : "";
  return `‹${shown}…(${secret.length} chars)›`;
}

/** Characters of context a preview keeps on each side of the secret. */
const CONTEXT_CHARS = 32;

/** The preview of `matches[index]` in `text`: the text around it on one line, every secret masked. */
export function maskedPreview(text: string, matches: readonly SecretMatch[], index: number): string {
  let masked = "";
  let last = 0;
  let from = 0;
  let to = 0;
  matches.forEach((m, i) => {
    masked += text.slice(last, m.start);
    if (i === index) from = masked.length;
    masked += maskSecret(text.slice(m.start, m.end));
    if (i === index) to = masked.length;
    last = m.end;
  });
  masked += text.slice(last);
  // Cut around the secret (never inside another's mask would not matter: masks hold no secret).
  const start = Math.max(0, from - CONTEXT_CHARS);
  const end = Math.min(masked.length, to + CONTEXT_CHARS);
  const piece = `${start > 0 ? "…" : ""}${masked.slice(start, end)}${end < masked.length ? "…" : ""}`;
  return piece.replace(/\s+/g, " ");
}

/** A value's secrets, and the value with each replaced by its marker (unchanged parts shared). */
export function redactSecrets<T>(
  value: T,
  detector: SecretDetector,
): { value: T; findings: SecretFinding[] } {
  const findings: SecretFinding[] = [];
  const redactor = new Redactor({
    detector,
    keepSignatures: true,
    onSecrets: (text, matches) => {
      for (let i = 0; i < matches.length; i++)
        findings.push({ kind: (matches[i] as SecretMatch).kind, preview: maskedPreview(text, matches, i) });
    },
  });
  return { value: redactor.value(value), findings };
}
