/**
 * The time of a user or assistant message as pi's listing reads it (beside the name a
 * `session_info` entry sets: format's `sessionInfoName`). Shared by the tail scan and the
 * listing, so both read it by pi's rules.
 */

/**
 * {@link messageActivityTime}, but throwing where pi's `new Date(entry.timestamp)` throws (an
 * object whose own `toString` is not a function, also inside an array): pi's listing then
 * skips the whole file.
 */
export function messageActivityTimeOrThrow(entry: Record<string, unknown>): number | undefined {
  if (entry.type !== "message") return undefined;
  const message = entry.message as { role?: unknown; timestamp?: unknown } | null | undefined;
  if (typeof message !== "object" || message === null) return undefined;
  if (typeof message.role !== "string" || !("content" in message)) return undefined;
  if (message.role !== "user" && message.role !== "assistant") return undefined;
  if (typeof message.timestamp === "number") return message.timestamp;
  // pi's `new Date(entry.timestamp)`, whatever its type: a number is a time (clipped to the
  // Date range), `true` is 1, `null` and `false` are 0, an array is parsed as its joined
  // string, a missing one is NaN.
  const t = new Date(entry.timestamp as string).getTime();
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Time of a user/assistant message entry as pi's listing computes it (`message.timestamp` when
 * a number, else `new Date(entry.timestamp)` of any type, when valid); undefined otherwise,
 * and where `new Date` throws (see {@link messageActivityTimeOrThrow}).
 */
export function messageActivityTime(entry: Record<string, unknown>): number | undefined {
  try {
    return messageActivityTimeOrThrow(entry);
  } catch {
    return undefined;
  }
}
