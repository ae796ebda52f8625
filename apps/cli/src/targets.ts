/**
 * The session files a batch command that checks or fixes files (`validate`, `migrate`,
 * `repair`) works on, named as every other command names sessions: paths (a directory is
 * searched for `*.jsonl`), session ids and id prefixes, `latest`, several of them, `--all` (every
 * `.jsonl` of the store), or nothing (the current project's sessions, said on stderr). Use
 * {@link sessionTargets} for such a command; a single `<session>` is `locate.ts`'s.
 */
import { dirname, join, resolve } from "node:path";
import { encodeCwd, statPath } from "@pi-session/node-store";
import { CliError, UsageError } from "./errors.js";
import { listStoreSessions } from "./listing.js";
import { listSessionFiles, resolveSession, sessionsRoot } from "./locate.js";
import { expandPaths } from "./paths.js";
import type { Context } from "./program.js";
import { oneLineField } from "./terminal-safe.js";
import { type NotSession, type Unreadable, unreadable } from "./unreadable.js";

export interface Targets {
  /** The files, each once, in the order named (a directory's and the store's in path order). */
  files: string[];
  /** What could not be read on the way (a directory, a dangling link). */
  unreadable: Unreadable[];
  /** Entries of the store named `*.jsonl` that are no regular file (with `--all` or no argument). */
  notSessions: NotSession[];
  /** Whether exactly one file was named by one argument that is no directory (a single-file run). */
  single: boolean;
}

function exists(path: string): boolean {
  try {
    return statPath(path) !== null;
  } catch {
    // Something is there that cannot be statted (no permission): a path, reported when read.
    return true;
  }
}

/** The `.jsonl` files of the store (the root and its project directories), in path order. */
function storeFiles(root: string, skipped: Unreadable[], notRegular: NotSession[]): string[] {
  const files = listSessionFiles(root, {
    onUnreadable: (path, error) =>
      skipped.push(unreadable(path, error) ?? { path, code: null, reason: error.message }),
    onNotRegular: (path) => notRegular.push({ path, kind: "not a regular file" }),
  });
  return files.map((f) => f.path).sort();
}

/**
 * The current project's files: every `.jsonl` in its own directory (broken ones too, so a
 * check sees them) and the sessions `ls` lists for it (a flat custom dir, filtered by cwd).
 */
async function projectFiles(
  ctx: Context,
  root: string,
  skipped: Unreadable[],
  notRegular: NotSession[],
): Promise<string[]> {
  const want = resolve(ctx.cwd);
  const projectDir = join(root, encodeCwd(want));
  const mine = (p: string) => dirname(p) === projectDir;
  const allSkipped: Unreadable[] = [];
  const allIrregular: NotSession[] = [];
  const own = storeFiles(root, allSkipped, allIrregular).filter(mine);
  skipped.push(...allSkipped.filter((s) => mine(s.path)));
  notRegular.push(...allIrregular.filter((s) => mine(s.path)));
  const listed = await listStoreSessions({ root, env: ctx.env, all: false, cwd: want });
  const seen = new Set(own);
  for (const s of listed.sessions) if (!seen.has(s.path)) own.push(s.path);
  for (const item of listed.unreadable) if (!skipped.some((s) => s.path === item.path)) skipped.push(item);
  return own.sort();
}

/**
 * The files `args` and `--all` name (see the header). `verb` says what is done to them, for
 * the line that says which sessions a bare command took ("checking").
 */
export async function sessionTargets(
  ctx: Context,
  args: readonly string[],
  options: Record<string, unknown>,
  verb: string,
): Promise<Targets> {
  const all = options.all === true;
  if (all && args.length > 0) throw new UsageError("give either sessions or --all, not both");
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const skipped: Unreadable[] = [];
  const notSessions: NotSession[] = [];
  if (all) {
    const files = storeFiles(root, skipped, notSessions);
    if (files.length === 0 && skipped.length === 0)
      throw new CliError(`no session files under ${root}`, {
        hint: "Pass paths or --session-dir to check files elsewhere.",
      });
    return { files, unreadable: skipped, notSessions, single: false };
  }
  if (args.length === 0) {
    const files = await projectFiles(ctx, root, skipped, notSessions);
    if (files.length === 0 && skipped.length === 0)
      throw new CliError(`no sessions for ${ctx.cwd} under ${root}`, {
        hint: "Pass session ids, paths or a directory, or --all for the whole store.",
      });
    const n = `${files.length} session${files.length === 1 ? "" : "s"}`;
    ctx.io.info(oneLineField(`${verb} the ${n} of ${ctx.cwd} (pass ids, paths or --all for others)`));
    return { files, unreadable: skipped, notSessions, single: false };
  }
  const files: string[] = [];
  let directories = 0;
  for (const arg of args) {
    if (arg === "") throw new UsageError("empty <session> argument");
    const full = resolve(ctx.cwd, arg);
    if (exists(full)) {
      const expanded = expandPaths(ctx, [arg]);
      if (expanded.files.length !== 1 || expanded.files[0] !== full) directories++;
      files.push(...expanded.files);
      skipped.push(...expanded.unreadable);
      notSessions.push(...expanded.notSessions);
    } else {
      files.push(await resolveSession(arg, { env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir }));
    }
  }
  const unique = [...new Set(files)];
  return { files: unique, unreadable: skipped, notSessions, single: args.length === 1 && directories === 0 };
}
