/**
 * Draws a session tree for `tree`: branch points with box-drawing connectors, labels, the leaf
 * marked, compactions and summaries highlighted, and long linear runs collapsed to their ends
 * so a 10,000-entry session stays readable. Iterative: deep chains cannot overflow the stack.
 */
import type { Colors } from "./io.js";
import { entrySummary } from "./render.js";
import { oneLineField } from "./terminal-safe.js";

export interface TreeNodeLike {
  entry: { id: string; type: string } & Record<string, unknown>;
  children: TreeNodeLike[];
  label?: string;
}

export interface TreeViewOptions {
  leafId: string | null;
  /** Collapse linear runs longer than this many plain entries (0: never collapse). */
  collapseAfter: number;
  width?: number;
}

/** Entries always shown, even inside a long linear run. */
function notable(node: TreeNodeLike, leafId: string | null): boolean {
  const t = node.entry.type;
  return (
    node.label !== undefined ||
    node.entry.id === leafId ||
    node.children.length !== 1 ||
    t === "compaction" ||
    t === "branch_summary" ||
    t === "session_info"
  );
}

function line(c: Colors, node: TreeNodeLike, leafId: string | null, width: number): string {
  const summary = entrySummary(node.entry, width);
  // One line per entry: a `\n` in a kind, preview, id or label is shown, not obeyed.
  const kind = oneLineField(summary.kind);
  const preview = oneLineField(summary.preview);
  const kindText =
    kind === "compaction" || kind === "branch summary"
      ? c.magenta(kind)
      : kind === "user"
        ? c.green(kind)
        : kind === "assistant"
          ? c.blue(kind)
          : kind;
  const parts = [c.dim(oneLineField(String(node.entry.id))), kindText];
  if (preview) parts.push(preview);
  if (node.label !== undefined) parts.push(c.yellow(`[${oneLineField(String(node.label))}]`));
  if (node.entry.id === leafId) parts.push(c.bold(c.green("← leaf")));
  return parts.join(" ");
}

/** Renders the forest; returns the lines (without trailing newlines). */
export function renderTree(c: Colors, roots: readonly TreeNodeLike[], options: TreeViewOptions): string[] {
  const out: string[] = [];
  const width = options.width ?? 60;
  // Each stack item starts a linear run: a root, or a child at a branch point.
  type Item = { node: TreeNodeLike; prefix: string; connector: string; childPrefix: string };
  const stack: Item[] = [];
  for (let i = roots.length - 1; i >= 0; i--) {
    const root = roots[i] as TreeNodeLike;
    stack.push({ node: root, prefix: "", connector: "", childPrefix: "" });
  }
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    // Walk the run: the node, then its only child while there is exactly one.
    const run: TreeNodeLike[] = [item.node];
    let last = item.node;
    while (last.children.length === 1) {
      last = last.children[0] as TreeNodeLike;
      run.push(last);
    }
    const body = item.childPrefix;
    let hidden = 0;
    const flushHidden = () => {
      if (hidden > 0) out.push(`${body}${c.dim(`┆ … ${hidden} more entr${hidden === 1 ? "y" : "ies"} …`)}`);
      hidden = 0;
    };
    // Plain entries are collapsed when a stretch of them is longer than collapseAfter:
    // the first and last two of the stretch stay visible.
    let stretch: TreeNodeLike[] = [];
    const emitStretch = () => {
      const limit = options.collapseAfter;
      if (limit > 0 && stretch.length > limit) {
        for (const n of stretch.slice(0, 2)) out.push(`${body}${line(c, n, options.leafId, width)}`);
        hidden = stretch.length - 4;
        flushHidden();
        for (const n of stretch.slice(-2)) out.push(`${body}${line(c, n, options.leafId, width)}`);
      } else {
        for (const n of stretch) out.push(`${body}${line(c, n, options.leafId, width)}`);
      }
      stretch = [];
    };
    run.forEach((node, i) => {
      if (i === 0) {
        out.push(`${item.prefix}${item.connector}${line(c, node, options.leafId, width)}`);
        return;
      }
      if (notable(node, options.leafId)) {
        emitStretch();
        out.push(`${body}${line(c, node, options.leafId, width)}`);
      } else stretch.push(node);
    });
    emitStretch();
    const kids = last.children;
    for (let k = kids.length - 1; k >= 0; k--) {
      const isLast = k === kids.length - 1;
      stack.push({
        node: kids[k] as TreeNodeLike,
        prefix: body,
        connector: isLast ? "└─ " : "├─ ",
        childPrefix: body + (isLast ? "   " : "│  "),
      });
    }
  }
  return out;
}
