/**
 * An edit as a diff with line numbers: read from the display diff pi's edit tool writes in its
 * result (`details.diff`: `-137 old`, `+137 new`, ` 136 context`, `     ...` for skipped
 * lines; numbers are the file's), else computed from the call's arguments with jsdiff (both
 * shapes: `edits: [{ oldText, newText }]` and the older top-level `oldText`/`newText`; numbers
 * are then lines of the edited text, as the file's are unknown). Use {@link editDiff} for the
 * diff of an edit call; renderers colour its lines.
 */
import { structuredPatch } from "diff";
import { isObject } from "@pi-session/format";

export type DiffLineKind = "context" | "added" | "removed" | "skipped";

export interface DiffLine {
  kind: DiffLineKind;
  /** Its line number: the old file's for context and removed lines, the new file's for added ones. */
  line?: number;
  text: string;
}

export interface EditDiff {
  /** `file`: numbers are the file's (pi's diff); `edit`: lines of the edited text (computed). */
  numbers: "file" | "edit";
  lines: DiffLine[];
}

/** Context lines around a change (pi's edit tool shows 4). */
const CONTEXT_LINES = 4;
/** Past this many changed lines jsdiff gives up and the edit shows as removed then added. */
const MAX_EDIT_LENGTH = 2_000;

const PI_LINE = /^([-+ ]) *(\d+) (.*)$/s;
const PI_SKIPPED = /^ +\.\.\.$/;

/** pi's display diff as lines, or undefined when it is not one. */
export function parsePiDiff(diff: string): DiffLine[] | undefined {
  const lines: DiffLine[] = [];
  for (const raw of diff.split("\n")) {
    if (PI_SKIPPED.test(raw)) {
      lines.push({ kind: "skipped", text: "..." });
      continue;
    }
    const match = PI_LINE.exec(raw);
    if (!match) return undefined;
    const sign = match[1] as string;
    lines.push({
      kind: sign === "+" ? "added" : sign === "-" ? "removed" : "context",
      line: Number(match[2]),
      text: match[3] as string,
    });
  }
  return lines.some((line) => line.kind === "added" || line.kind === "removed") ? lines : undefined;
}

/** The old text removed and the new one added, line for line (when jsdiff gives up). */
function replaced(oldText: string, newText: string): DiffLine[] {
  const removed = oldText.split("\n").map((text, k): DiffLine => ({ kind: "removed", line: k + 1, text }));
  const added = newText.split("\n").map((text, k): DiffLine => ({ kind: "added", line: k + 1, text }));
  return removed.concat(added);
}

/** The diff of one replacement, numbered from its first line. */
export function computeDiff(oldText: string, newText: string): DiffLine[] {
  // A final newline on both sides: no "\ No newline at end of file" markers.
  const patch = structuredPatch("", "", `${oldText}\n`, `${newText}\n`, "", "", {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  if (patch === undefined) return replaced(oldText, newText);
  const lines: DiffLine[] = [];
  patch.hunks.forEach((hunk, k) => {
    if (k > 0 || hunk.oldStart > 1) lines.push({ kind: "skipped", text: "..." });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const raw of hunk.lines) {
      const text = raw.slice(1);
      if (raw[0] === "+") lines.push({ kind: "added", line: newLine++, text });
      else if (raw[0] === "-") lines.push({ kind: "removed", line: oldLine++, text });
      else if (raw[0] === " ") {
        lines.push({ kind: "context", line: oldLine++, text });
        newLine++;
      }
    }
  });
  return lines;
}

/** The replacements of an edit call's arguments, in either shape; undefined for neither. */
export function editReplacements(args: unknown): { oldText: string; newText: string }[] | undefined {
  if (!isObject(args)) return undefined;
  if (typeof args.oldText === "string" && typeof args.newText === "string")
    return [{ oldText: args.oldText, newText: args.newText }];
  if (!Array.isArray(args.edits)) return undefined;
  const edits = args.edits.filter(
    (e): e is { oldText: string; newText: string } =>
      isObject(e) && typeof e.oldText === "string" && typeof e.newText === "string",
  );
  return edits.length > 0 ? edits : undefined;
}

/**
 * The diff of an edit call: pi's from its result's `details` when there is one, else computed
 * from the call's arguments; undefined when neither gives one.
 */
export function editDiff(args: unknown, resultDetails: unknown): EditDiff | undefined {
  if (isObject(resultDetails) && typeof resultDetails.diff === "string") {
    const lines = parsePiDiff(resultDetails.diff);
    if (lines) return { numbers: "file", lines };
  }
  const edits = editReplacements(args);
  if (edits === undefined) return undefined;
  const lines: DiffLine[] = [];
  edits.forEach((edit, k) => {
    const diff = computeDiff(edit.oldText, edit.newText);
    if (k > 0 && diff[0]?.kind !== "skipped") lines.push({ kind: "skipped", text: "..." });
    for (const line of diff) lines.push(line);
  });
  return { numbers: "edit", lines };
}

/** The diff as text: `-12 old`, `+12 new`, ` 11 context`, `...`, numbers padded to one width. */
export function diffText(diff: EditDiff): string {
  const width = diff.lines.reduce((most, line) => Math.max(most, String(line.line ?? "").length), 1);
  return diff.lines
    .map((line) => {
      if (line.kind === "skipped") return ` ${" ".repeat(width)} ...`;
      const sign = line.kind === "added" ? "+" : line.kind === "removed" ? "-" : " ";
      return `${sign}${String(line.line ?? "").padStart(width)} ${line.text}`;
    })
    .join("\n");
}
