/**
 * Typed option values for the commands, with usage errors (exit 2) for bad ones. Kept apart
 * from `common.ts`, which finds and loads sessions, so a command that only needs its options
 * read (`search`) does not load the listing code with them.
 */
import { TIME_ARG_FORMS, TimeArgError, isTimeZone, parseTimeArg } from "@pi-session/search/documents";
import { UsageError } from "../errors.js";

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
