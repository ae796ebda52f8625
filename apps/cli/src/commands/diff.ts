/**
 * `diff <session> [<entryA> <entryB>]`: two branches of a session side by side: their common
 * ancestor (tree's `branchPair`) and what each did after it (search's `summarizeSide`: entries,
 * messages, tool calls, files touched, tokens and cost, how it ended). Without entries, the
 * current leaf against the most recent other leaf. `--parent` compares a fork with the session
 * it was forked from (their paths by entry id: a fork copies its parent's entries).
 */
import type { AnyEntry } from "@pi-session/format";
import { type Piece, fitPieces } from "@pi-session/render";
import {
  type SideEntry,
  type SideSummary,
  entryTime,
  sessionParent,
  summarizeSide,
} from "@pi-session/search/documents";
import { type Divergence, branchPair, divergence, leavesOf } from "@pi-session/tree";
import { homedir } from "node:os";
import { CliError, UsageError } from "../errors.js";
import { type LoadedSession, loadSession } from "../load.js";
import { resolveSession } from "../locate.js";
import type { Action, Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { formatCost, formatInt } from "../text.js";
import { entryId, openSession } from "./common.js";

interface Side {
  /** The session file the side is of. */
  session: string;
  leaf: string | null;
  /** The current leaf of its session. */
  current: boolean;
  summary: SideSummary;
}

function describe(entry: AnyEntry | null): SideEntry | null {
  if (entry === null) return null;
  return summarizeSide([entry as unknown as Record<string, unknown>], { cwd: "" }).entries[0] ?? null;
}

function side(loaded: LoadedSession, entries: readonly AnyEntry[], leaf: string | null): Side {
  const cwd = typeof loaded.header.cwd === "string" ? loaded.header.cwd : "";
  return {
    session: loaded.path,
    leaf,
    current: leaf !== null && leaf === loaded.index.leafId,
    summary: summarizeSide(entries as unknown as Record<string, unknown>[], { cwd, home: homedir() }),
  };
}

/** The leaf to compare the current one with: the most recent other leaf (by time, then file order). */
function otherLeaf(loaded: LoadedSession): string {
  const current = loaded.index.leafId;
  let best: AnyEntry | undefined;
  let bestTime = Number.NEGATIVE_INFINITY;
  for (const leaf of leavesOf(loaded.index)) {
    if (leaf.id === current) continue;
    const t = entryTime(leaf as unknown as Record<string, unknown>);
    const time = Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
    if (best === undefined || time >= bestTime) {
      best = leaf;
      bestTime = time;
    }
  }
  if (!best)
    throw new CliError(`${loaded.path}: one branch only: nothing to compare`, {
      hint: "Name two entries (pi-session diff <session> <entryA> <entryB>), or compare a fork with --parent.",
    });
  return best.id;
}

function sideJson(s: Side) {
  return { session: s.session, leaf: s.leaf, current: s.current, ...s.summary };
}

function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, n]) => `${k} ${n}`);
  return parts.length > 0 ? parts.join(", ") : "none";
}

function printSide(ctx: Context, name: string, s: Side): void {
  const c = ctx.io.out;
  const width = ctx.io.columns;
  const n = s.summary.entries.length;
  ctx.io.line(
    fitPieces(
      [
        { text: name, style: c.bold },
        { text: "  " },
        { text: oneLineField(s.leaf ?? "(empty)"), style: c.magenta },
        { text: s.current ? "  (current leaf)" : "", style: c.dim },
        { text: `  ${n} entr${n === 1 ? "y" : "ies"} after the ancestor` },
      ],
      width,
    ),
  );
  for (const e of s.summary.entries) {
    const pieces: Piece[] = [
      { text: "  " },
      { text: oneLineField(e.id ?? "-"), style: c.dim },
      { text: "  " },
      { text: oneLineField(e.role ?? e.type).padEnd(10), style: c.cyan },
      { text: " " },
      { text: oneLineField(e.text) },
    ];
    ctx.io.line(fitPieces(pieces, width));
  }
  const sum = s.summary;
  const files = sum.files.map((f) => `${f.actions.join("+")} ${f.path}`);
  const facts = [
    `  messages ${countsText(sum.messages)} · tool calls ${countsText(sum.toolCalls)}`,
    `  tokens ${formatInt(sum.tokens)} · cost ${formatCost(sum.cost)} · ended ${sum.stopReason ?? "-"}`,
  ];
  for (const line of facts) ctx.io.line(fitPieces([{ text: oneLineField(line), style: c.dim }], width));
  for (const f of files)
    ctx.io.line(fitPieces([{ text: `  file ${oneLineField(f)}`, style: c.yellow }], width));
}

export const action: Action = async (ctx, [arg, a, b], options) => {
  const given = [a, b].filter((x): x is string => typeof x === "string" && x !== "");
  if (given.length === 1)
    throw new UsageError("give two entries to compare, or none (the current leaf and the latest other)");
  if (options.parent === true && given.length > 0)
    throw new UsageError("--parent compares the fork's current branch with its parent's: give no entries");
  const loaded = await openSession(ctx, arg);
  let pair: Divergence<AnyEntry>;
  let left: Side;
  let right: Side;
  if (options.parent === true) {
    const parentPath = sessionParent(loaded.header);
    if (parentPath === undefined)
      throw new CliError(`${loaded.path}: not a fork (its header names no parent session)`);
    let parent: LoadedSession;
    try {
      parent = await loadSession(
        await resolveSession(parentPath, { env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir }),
      );
    } catch (error) {
      throw new CliError(
        `${loaded.path}: its parent session ${parentPath} cannot be read: ${(error as Error).message}`,
      );
    }
    pair = divergence(parent.index.activePath(), loaded.index.activePath(), (x, y) => x.id === y.id);
    left = side(parent, pair.left, parent.index.leafId);
    right = side(loaded, pair.right, loaded.index.leafId);
  } else {
    const ids = loaded.index.byId.keys();
    const context = { what: "entry", path: loaded.path };
    const leftId = given.length === 2 ? entryId(ids, given[0] as string, context) : loaded.index.leafId;
    if (leftId === null) throw new CliError(`${loaded.path}: no entries to compare`);
    const rightId =
      given.length === 2 ? entryId(loaded.index.byId.keys(), given[1] as string, context) : otherLeaf(loaded);
    pair = branchPair(loaded.index, leftId, rightId);
    left = side(loaded, pair.left, leftId);
    right = side(loaded, pair.right, rightId);
  }
  const ancestor = describe(pair.ancestor);
  if (ctx.json) {
    ctx.io.printJson({ ancestor, left: sideJson(left), right: sideJson(right) });
    return 0;
  }
  const c = ctx.io.out;
  ctx.io.line(
    fitPieces(
      ancestor
        ? [
            { text: "common ancestor", style: c.bold },
            { text: "  " },
            { text: oneLineField(ancestor.id ?? "-"), style: c.magenta },
            { text: "  " },
            { text: oneLineField(ancestor.role ?? ancestor.type), style: c.cyan },
            { text: "  " },
            { text: oneLineField(ancestor.text) },
          ]
        : [{ text: "no common ancestor (the branches start at different roots)", style: c.bold }],
      ctx.io.columns,
    ),
  );
  ctx.io.line();
  printSide(ctx, options.parent === true ? "parent" : "left", left);
  ctx.io.line();
  printSide(ctx, options.parent === true ? "fork" : "right", right);
  return 0;
};
