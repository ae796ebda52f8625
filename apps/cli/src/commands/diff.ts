/**
 * `diff <session> [<entryA> <entryB>]`: two branches of a session side by side: their common
 * ancestor and what each did after it (search's `compareBranches`: entries, messages, tool
 * calls, files touched, tokens and cost, how it ended; the web app's compare view shows the
 * same). Without entries, the current leaf against the most recent other leaf. `--parent`
 * compares a fork with the session it was forked from (their paths by entry id: a fork copies
 * its parent's entries).
 */
import { homedir } from "node:os";
import { type Piece, fitPieces } from "@pi-session/render";
import {
  type BranchCompare,
  type ComparedSide,
  compareBranches,
  comparePaths,
  defaultPair,
  sessionParent,
} from "@pi-session/search/documents";
import { CliError, UsageError } from "../errors.js";
import { type LoadedSession, loadSession } from "../load.js";
import { resolveSession } from "../locate.js";
import type { Action, Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { formatCost, formatInt } from "../text.js";
import { entryId, openSession } from "./common.js";

function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, n]) => `${k} ${n}`);
  return parts.length > 0 ? parts.join(", ") : "none";
}

/** Where a session's tool-call paths resolve: its header's cwd, `~` this machine's home. */
function baseOf(loaded: LoadedSession) {
  return { cwd: typeof loaded.header.cwd === "string" ? loaded.header.cwd : "", home: homedir() };
}

function printSide(ctx: Context, name: string, s: ComparedSide): void {
  const c = ctx.io.out;
  const width = ctx.io.columns;
  const n = s.entries.length;
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
  for (const e of s.entries) {
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
  const sum = s;
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
  let compared: BranchCompare;
  let leftSession = loaded.path;
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
    leftSession = parent.path;
    compared = comparePaths(
      { path: parent.index.activePath(), base: baseOf(parent), currentLeaf: parent.index.leafId },
      { path: loaded.index.activePath(), base: baseOf(loaded), currentLeaf: loaded.index.leafId },
    );
  } else {
    let pair: { left: string; right: string } | undefined;
    if (given.length === 2) {
      const context = { what: "entry", path: loaded.path };
      pair = {
        left: entryId(loaded.index.byId.keys(), given[0] as string, context),
        right: entryId(loaded.index.byId.keys(), given[1] as string, context),
      };
    } else pair = defaultPair(loaded.index);
    if (!pair)
      throw new CliError(`${loaded.path}: one branch only: nothing to compare`, {
        hint: "Name two entries (pi-session diff <session> <entryA> <entryB>), or compare a fork with --parent.",
      });
    compared = compareBranches(loaded.index, pair.left, pair.right, baseOf(loaded));
  }
  const { ancestor, left, right } = compared;
  if (ctx.json) {
    ctx.io.printJson({
      ancestor,
      left: { session: leftSession, ...left },
      right: { session: loaded.path, ...right },
    });
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
