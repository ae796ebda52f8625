/**
 * Helpers shared by the commands: turning a `<session>` argument into a loaded session, and
 * reading typed option values with usage errors (exit 2) for bad ones.
 */
import { type LoadedSession, loadSession } from "../load.js";
import { resolveSession } from "../locate.js";
import type { Context } from "../program.js";
import { UsageError } from "../errors.js";
import { matchIdPrefix } from "../ids.js";
import { TIME_ARG_FORMS, TimeArgError, isTimeZone, parseTimeArg } from "../dates.js";

export async function sessionPath(ctx: Context, arg: unknown): Promise<string> {
  if (typeof arg !== "string" || arg === "") throw new UsageError("missing <session> argument");
  return resolveSession(arg, { env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
}

export async function openSession(ctx: Context, arg: unknown): Promise<LoadedSession> {
  return loadSession(await sessionPath(ctx, arg));
}

/** A string option (cac gives numbers for numeric-looking values, `true` for a bare flag). */
export function stringOption(
  options: Record<string, unknown>,
  name: string,
  flag: string,
): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (value === true || value === "" || Array.isArray(value)) throw new UsageError(`${flag} needs a value`);
  return String(value);
}

/**
 * `--limit N` and the like: a whole number of at least 1. `0` is refused too (it would list
 * nothing; leave the option out for no limit), and so is a negative number (which reaches
 * here as a value, see `program.ts`'s `camelOptions`).
 */
export function intOption(options: Record<string, unknown>, name: string, flag: string): number | undefined {
  const raw = stringOption(options, name, flag);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\s*[+-]?\d+\s*$/.test(raw) || !Number.isSafeInteger(n))
    throw new UsageError(`${flag} needs a whole number, got \`${raw}\``);
  if (n < 1)
    throw new UsageError(
      `${flag} needs a number of at least 1, got \`${raw}\``,
      `Leave ${flag} out for no limit.`,
    );
  return n;
}

/** `--since` / `--until` as epoch ms: since = the start of the value, until = its end (exclusive). */
export interface TimeBounds {
  sinceMs?: number;
  untilMs?: number;
}

export interface TimeBoundsOptions {
  /** An IANA zone the values are read in (`--timezone`); default: the system's. */
  timeZone?: string | undefined;
  /** "Now" (default: `Date.now()`). */
  nowMs?: number;
}

/** One `--since` or `--until` value (see `dates.ts`), or a usage error saying what is wrong. */
function timeArg(raw: string, flag: string, opts: TimeBoundsOptions) {
  try {
    return parseTimeArg(raw, { nowMs: opts.nowMs ?? Date.now(), timeZone: opts.timeZone });
  } catch (error) {
    if (!(error instanceof TimeArgError)) throw error;
    throw new UsageError(`${flag} \`${raw}\`: ${error.message}`, `Use ${TIME_ARG_FORMS}.`);
  }
}

/**
 * `--since DATE` and `--until DATE`, read strictly by the one date parser (`dates.ts`): a day
 * is the whole day (`--until 2026-03-01` includes March 1), a time or a span one moment. A
 * range that ends before it starts is a usage error.
 */
export function timeBoundsOptions(
  options: Record<string, unknown>,
  opts: TimeBoundsOptions = {},
): TimeBounds {
  const since = stringOption(options, "since", "--since");
  const until = stringOption(options, "until", "--until");
  const out: TimeBounds = {};
  if (since !== undefined) out.sinceMs = timeArg(since, "--since", opts).startMs;
  if (until !== undefined) out.untilMs = timeArg(until, "--until", opts).endMs;
  if (out.sinceMs !== undefined && out.untilMs !== undefined && out.untilMs <= out.sinceMs)
    throw new UsageError(`--until \`${until}\` is not after --since \`${since}\``);
  return out;
}

/** `--timezone ZONE`: an IANA zone name this Node knows, or a usage error. */
export function timeZoneOption(options: Record<string, unknown>): string | undefined {
  const zone = stringOption(options, "timezone", "--timezone");
  if (zone === undefined) return undefined;
  if (!isTimeZone(zone))
    throw new UsageError(
      `--timezone \`${zone}\`: not a time zone`,
      "Use an IANA name such as UTC, Europe/Berlin or America/New_York.",
    );
  return zone;
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
