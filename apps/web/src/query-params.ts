/**
 * The API's query parameters, read strictly: each route names the parameters it takes
 * ({@link QueryParams.of}); one it does not take, or one given twice, is refused, and each
 * value is read by its kind (a whole number in a range, `0` or `1`, one of a few words). Every
 * refusal is a {@link BadRequest} (the server answers 400), never an exception the server would
 * answer with 500. Use it for every parameter of every route, so a new parameter gets the same
 * rules.
 */

/** A request the server refuses as malformed (HTTP 400), with a message for the page. */
export class BadRequest extends Error {
  override readonly name = "BadRequest";
}

/** The parameter every API route takes besides its own: the token (for EventSource and downloads). */
export const TOKEN_PARAM = "token";

/** The range of a JavaScript date, in ms (as `sinceMs` and `untilMs` are compared with dates). */
export const DATE_MS_LIMIT = 8.64e15;

export class QueryParams {
  private constructor(private readonly values: Map<string, string>) {}

  /** The parameters of `search`, refusing a name not in `allowed` and a name given twice. */
  static of(search: URLSearchParams, allowed: readonly string[]): QueryParams {
    const values = new Map<string, string>();
    for (const [name, value] of search) {
      if (name !== TOKEN_PARAM && !allowed.includes(name))
        throw new BadRequest(
          allowed.length === 0
            ? `this endpoint takes no parameter (got ${JSON.stringify(name)})`
            : `unknown parameter ${JSON.stringify(name)} (this endpoint takes ${allowed.join(", ")})`,
        );
      if (values.has(name)) throw new BadRequest(`${name} is given more than once`);
      values.set(name, value);
    }
    return new QueryParams(values);
  }

  /** The value, or undefined when absent or empty. */
  text(name: string): string | undefined {
    const value = this.values.get(name);
    return value === undefined || value === "" ? undefined : value;
  }

  /** A whole number (digits, an optional `-`) from `min` to `max`, or undefined when absent. */
  integer(name: string, range: { min: number; max: number }): number | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < range.min || n > range.max)
      throw new BadRequest(
        `${name} must be a whole number from ${range.min} to ${range.max}, got ${JSON.stringify(raw)}`,
      );
    return n;
  }

  /** `1` (true) or `0` (false); undefined when absent. */
  flag(name: string): boolean | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    if (raw !== "0" && raw !== "1")
      throw new BadRequest(`${name} must be 0 or 1, got ${JSON.stringify(raw)}`);
    return raw === "1";
  }

  /** One of `words`; `fallback` when absent. */
  oneOf<T extends string>(name: string, words: readonly T[], fallback: T): T {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    if (!(words as readonly string[]).includes(raw))
      throw new BadRequest(`${name} must be one of ${words.join(", ")}, got ${JSON.stringify(raw)}`);
    return raw as T;
  }

  /** A comma-separated list of `words` (at least one); undefined when absent. */
  listOf<T extends string>(name: string, words: readonly T[]): T[] | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    const list = raw.split(",");
    if (!list.every((w) => (words as readonly string[]).includes(w)))
      throw new BadRequest(
        `${name} must be a comma-separated list of ${words.join(", ")}, got ${JSON.stringify(raw)}`,
      );
    return list as T[];
  }
}

/** A path segment decoded (`%2F` → `/`); a malformed `%` is a {@link BadRequest}. */
export function decodeSegment(segment: string, what: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`${what} is not valid percent-encoding: ${JSON.stringify(segment)}`);
  }
}
