/**
 * A session's tree as lines of text, for a terminal (`pi-session tree`): one line per entry
 * (id, kind, a preview, its label, the leaf marked), box-drawing connectors at branch points,
 * compactions and summaries highlighted, and long linear runs collapsed to their ends so a
 * 10,000-entry session stays readable. Use {@link renderTreeLines} with the index's `getTree()`.
 *
 * Deep trees stay readable: past a few levels of branches (more on a wider line) a line shows
 * only its last levels, after its depth as a number (`‹14› │  ├─ …`). Fitted to a width, every
 * line is cut with `…`, the preview first. Iterative throughout: a 200,000-deep chain draws
 * without recursion, and each line costs at most its visible levels.
 */
import { type AnyEntry, entryTypeInfo } from "@pi-session/format";
import type { SessionTreeNode } from "@pi-session/tree";
import { oneLineField } from "./sanitize.js";
import { entrySummary } from "./summary.js";
import type { TextStyle } from "./text.js";
import { type Piece, fitPieces, textWidth } from "./width.js";

export interface TreeTextOptions {
  /** The entry marked `← leaf`. */
  leafId: string | null;
  /** Collapse linear runs of more than this many plain entries (0: never; default 8). */
  collapseAfter?: number;
  /** Columns every line must fit in (a terminal's width); default: no limit. */
  width?: number;
  style?: Partial<TextStyle>;
}

/** Plain entries in a row beyond which a run is collapsed, by default. */
export const TREE_COLLAPSE_AFTER = 8;
/** Branch levels drawn in full without a width (a pipe), and at least with one. */
const PLAIN_LEVELS = 16;
const MIN_LEVELS = 4;
/** Columns a level of indentation takes (`│  `). */
const LEVEL_COLUMNS = 3;
/** Columns of a line's start (its id and kind) kept before its label and leaf marker give way. */
const LEAD_COLUMNS = 12;

type Node = SessionTreeNode<AnyEntry>;

/** One level of indentation in a persistent list: the innermost level points to its parent. */
interface Level {
  segment: string;
  parent: Level | undefined;
  depth: number;
}

const plain = (text: string) => text;

/**
 * Entries always shown, even inside a long linear run: labelled ones, the leaf, branch points,
 * summaries (compactions, branch summaries) and what names the session.
 */
function notable(node: Node, leafId: string | null): boolean {
  if (node.label !== undefined || node.entry.id === leafId || node.children.length !== 1) return true;
  const info = entryTypeInfo(node.entry.type);
  return (
    info !== undefined &&
    info.summary !== "role" &&
    (info.summary.tone === "summary" || info.index === "name")
  );
}

/**
 * The drawn indentation of a line: every level while there are at most `max`, else the
 * depth as a number and the last levels that fit.
 */
function indentation(level: Level | undefined, connector: string, max: number, s: TextStyle): Piece[] {
  const depth = level?.depth ?? 0;
  const shown = depth > max ? max - 1 : depth;
  const segments: string[] = [];
  let at = level;
  for (let k = 0; k < shown && at; k++, at = at.parent) segments.push(at.segment);
  segments.reverse();
  const pieces: Piece[] = [];
  if (depth > max) pieces.push({ text: `‹${depth + (connector === "" ? 0 : 1)}› `, style: s.dim });
  pieces.push({ text: segments.join("") + connector });
  return pieces;
}

/** Characters of a preview: cut by the width on a terminal, kept short on a pipe. */
const PREVIEW_CHARS = { fitted: 200, plain: 60 } as const;

/** The text of one entry's line, after its indentation. */
function entryPieces(
  node: Node,
  leafId: string | null,
  s: TextStyle,
  previewChars: number,
): { lead: Piece[]; tail: Piece[] } {
  const summary = entrySummary(node.entry, previewChars);
  const kind = oneLineField(summary.kind);
  const preview = oneLineField(summary.preview);
  const tone = summary.tone;
  const kindStyle =
    tone === "summary" ? s.magenta : tone === "user" ? s.green : tone === "assistant" ? s.blue : plain;
  const lead: Piece[] = [{ text: oneLineField(String(node.entry.id)), style: s.dim }, { text: " " }];
  lead.push({ text: kind, style: kindStyle });
  if (preview) lead.push({ text: ` ${preview}` });
  const tail: Piece[] = [];
  if (node.label !== undefined)
    tail.push({ text: ` [${oneLineField(String(node.label))}]`, style: s.yellow });
  if (node.entry.id === leafId) tail.push({ text: " ← leaf", style: (t) => s.bold(s.green(t)) });
  return { lead, tail };
}

/** A line of pieces fitted to `width`: the lead (the preview's end first) gives way before the tail. */
function fitLine(lead: Piece[], tail: Piece[], width: number | undefined): string {
  if (width === undefined) return fitPieces([...lead, ...tail], undefined);
  const columns = (pieces: Piece[]) => pieces.reduce((n, p) => n + textWidth(p.text), 0);
  const tailWidth = columns(tail);
  if (columns(lead) + tailWidth <= width) return fitPieces([...lead, ...tail], undefined);
  const indent = columns(lead.slice(0, 2));
  if (width - tailWidth < indent + LEAD_COLUMNS) return fitPieces([...lead, ...tail], width);
  return fitPieces(lead, width - tailWidth) + fitPieces(tail, undefined);
}

/**
 * The tree of `roots` (an index's `getTree()`) as lines without line ends. Session text is
 * shown through `oneLineField` (a `\n` in a preview or label is shown, not obeyed); the only
 * escapes are those the `style` functions add.
 */
export function renderTreeLines(roots: readonly Node[], options: TreeTextOptions): string[] {
  const s: TextStyle = {
    bold: plain,
    dim: plain,
    italic: plain,
    red: plain,
    green: plain,
    yellow: plain,
    blue: plain,
    magenta: plain,
    cyan: plain,
    ...options.style,
  };
  const width = options.width !== undefined && options.width > 0 ? Math.floor(options.width) : undefined;
  // Levels drawn in full: a third of the line, within bounds.
  const maxLevels =
    width === undefined ? PLAIN_LEVELS : Math.max(MIN_LEVELS, Math.floor(width / 3 / LEVEL_COLUMNS));
  const collapseAfter = options.collapseAfter ?? TREE_COLLAPSE_AFTER;
  const { leafId } = options;
  const out: string[] = [];
  const previewChars = width === undefined ? PREVIEW_CHARS.plain : PREVIEW_CHARS.fitted;
  const emit = (level: Level | undefined, connector: string, node: Node) => {
    const { lead, tail } = entryPieces(node, leafId, s, previewChars);
    out.push(fitLine([...indentation(level, connector, maxLevels, s), ...lead], tail, width));
  };
  // Each stack item starts a linear run: a root, or a child at a branch point.
  type Item = { node: Node; level: Level | undefined; connector: string; body: Level | undefined };
  const stack: Item[] = [];
  for (let i = roots.length - 1; i >= 0; i--)
    stack.push({ node: roots[i] as Node, level: undefined, connector: "", body: undefined });
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    // Walk the run: the node, then its only child while there is exactly one.
    const run: Node[] = [item.node];
    let last = item.node;
    while (last.children.length === 1) {
      last = last.children[0] as Node;
      run.push(last);
    }
    const { body } = item;
    // A stretch of plain entries longer than collapseAfter shows its first and last two.
    let stretch: Node[] = [];
    const emitStretch = () => {
      if (collapseAfter > 0 && stretch.length > collapseAfter) {
        for (const n of stretch.slice(0, 2)) emit(body, "", n);
        const hidden = stretch.length - 4;
        const note = `┆ … ${hidden} more entr${hidden === 1 ? "y" : "ies"} …`;
        out.push(fitLine([...indentation(body, "", maxLevels, s), { text: note, style: s.dim }], [], width));
        for (const n of stretch.slice(-2)) emit(body, "", n);
      } else for (const n of stretch) emit(body, "", n);
      stretch = [];
    };
    run.forEach((node, i) => {
      if (i === 0) emit(item.level, item.connector, node);
      else if (notable(node, leafId)) {
        emitStretch();
        emit(body, "", node);
      } else stretch.push(node);
    });
    emitStretch();
    const kids = last.children;
    for (let k = kids.length - 1; k >= 0; k--) {
      const isLast = k === kids.length - 1;
      stack.push({
        node: kids[k] as Node,
        level: body,
        connector: isLast ? "└─ " : "├─ ",
        body: { segment: isLast ? "   " : "│  ", parent: body, depth: (body?.depth ?? 0) + 1 },
      });
    }
  }
  return out;
}
