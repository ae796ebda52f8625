/**
 * Helpers shared by the commands: turning a `<session>` argument into a loaded session, and
 * the typed option readers of `options.ts` (re-exported here).
 */
import { type LoadedSession, loadSession } from "../load.js";
import { resolveSession } from "../locate.js";
import type { Context } from "../program.js";
import { UsageError } from "../errors.js";
import { matchIdPrefix } from "../ids.js";
import { stringOption } from "./options.js";
export {
  type TimeBounds,
  type TimeBoundsOptions,
  intOption,
  stringOption,
  timeBoundsOptions,
  timeZoneOption,
} from "./options.js";

export async function sessionPath(ctx: Context, arg: unknown): Promise<string> {
  if (typeof arg !== "string" || arg === "") throw new UsageError("missing <session> argument");
  return resolveSession(arg, { env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
}

export async function openSession(ctx: Context, arg: unknown): Promise<LoadedSession> {
  return loadSession(await sessionPath(ctx, arg));
}

/**
 * An entry id option that must name one entry of the session: its id or a prefix of it, in
 * any case. The full id is returned.
 */
export function entryIdOption(
  session: LoadedSession,
  options: Record<string, unknown>,
  name: string,
  flag: string,
): string | undefined {
  const typed = stringOption(options, name, flag);
  if (typed === undefined) return undefined;
  return entryId(session.index.byId.keys(), typed, { what: flag, path: session.path });
}

/**
 * The entry id `typed` names among `ids`: an exact id, else a unique prefix (any case); a usage
 * error saying what is wrong otherwise (none, or several, listed).
 */
export function entryId(
  ids: Iterable<string>,
  typed: string,
  context: { what: string; path: string },
): string {
  const match = matchIdPrefix(typed, ids, (id) => id);
  if (match.kind === "one") return match.item;
  if (match.kind === "none")
    throw new UsageError(
      `${context.what} ${typed}: no entry with that id in ${context.path}`,
      "See the ids with `pi-session tree <session>`.",
    );
  const shown = match.items.slice(0, 10);
  const more = match.items.length > shown.length ? `, and ${match.items.length - shown.length} more` : "";
  throw new UsageError(
    `${context.what} ${typed}: ${match.items.length} entries start with it (${shown.join(", ")}${more})`,
    "Type more characters of the entry id.",
  );
}
