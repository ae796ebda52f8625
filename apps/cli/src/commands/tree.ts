/**
 * `tree <session>`: every entry as a tree, with labels, branch points, the leaf, compactions
 * and summaries marked; long linear runs are collapsed unless `--full`. The lines are the render
 * layer's (`renderTreeLines`), fitted to the terminal's width, deep levels folded.
 */
import { TREE_COLLAPSE_AFTER, entrySummary, renderTreeLines } from "@pi-session/render";
import { sessionParent } from "@pi-session/search/documents";
import { familyJson, familyLines, familyOf } from "../family.js";
import { sessionsRoot } from "../locate.js";
import type { Action } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { openSession } from "./common.js";

export const action: Action = async (ctx, [arg], options) => {
  const session = await openSession(ctx, arg);
  const { index } = session;
  const diagnostics = index.diagnostics;
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const family = await familyOf(root, session.path, sessionParent(session.header), ctx.env);
  if (ctx.json) {
    // A flat list (not nested JSON) so a 200,000-deep chain prints without recursion.
    const roots = index.getTree();
    const entries: unknown[] = [];
    const stack = [...roots].reverse();
    while (stack.length > 0) {
      const node = stack.pop();
      if (!node) break;
      const { kind, preview } = entrySummary(node.entry, 120);
      entries.push({
        id: node.entry.id,
        parentId: node.entry.parentId ?? null,
        type: node.entry.type,
        kind,
        preview,
        timestamp: node.entry.timestamp ?? null,
        label: node.label ?? null,
        children: node.children.map((child) => child.entry.id),
      });
      for (let i = node.children.length - 1; i >= 0; i--)
        stack.push(node.children[i] as (typeof roots)[number]);
    }
    ctx.io.printJson({
      file: session.path,
      id: session.header.id,
      ...familyJson(family),
      leafId: index.leafId,
      roots: roots.map((r) => r.entry.id),
      entries,
      diagnostics: diagnostics.map((d) => ({
        code: d.code,
        severity: d.severity,
        id: d.id ?? null,
        line: d.line ?? null,
        offset: d.offset ?? null,
        reason: d.reason,
      })),
    });
    return 0;
  }
  const lines = renderTreeLines(index.getTree(), {
    leafId: index.leafId,
    collapseAfter: options.full === true ? 0 : TREE_COLLAPSE_AFTER,
    style: ctx.io.out,
    ...(ctx.io.columns !== undefined ? { width: ctx.io.columns } : {}),
  });
  for (const line of familyLines(family)) ctx.io.line(ctx.io.out.dim(oneLineField(line)));
  for (const line of lines) ctx.io.line(line);
  for (const d of diagnostics) {
    const where = d.line !== undefined ? `${session.path}:${d.line}: ` : `${session.path}: `;
    ctx.io.warn(oneLineField(`${where}${d.reason}`));
  }
  return 0;
};
