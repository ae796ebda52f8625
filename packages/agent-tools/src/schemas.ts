/**
 * The tools' inputs: one JSON Schema per tool (what an MCP client and pi's model see), and the
 * check of a call's arguments against it with messages a model can act on. The schemas are
 * plain JSON Schema objects, so an MCP server sends them as they are and pi (which validates
 * any JSON Schema) registers them as a tool's `parameters`. Use {@link checkArguments} before a
 * tool runs: a bad argument becomes a {@link ToolInputError}, which the caller answers with a
 * tool error, never a crash.
 */

/** The part of JSON Schema the tools' inputs use. */
export interface PropertySchema {
  type: "string" | "integer" | "boolean";
  description: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
}

export interface InputSchema {
  type: "object";
  properties: Record<string, PropertySchema>;
  required: readonly string[];
  additionalProperties: false;
}

/** An argument that does not fit the tool's schema, said so the model can call again. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolInputError";
  }
}

/** The most characters an answer may have unless the server is told otherwise. */
export const DEFAULT_MAX_CHARS = 20_000;
/** The fewest characters a caller may ask for (a budget below this holds no useful answer). */
export const MIN_MAX_CHARS = 1000;

export const ROLES = ["user", "assistant", "tool"] as const;
export const STATS_GROUPS = ["day", "week", "month", "session", "project", "model"] as const;

const TIME_HELP =
  "YYYY-MM-DD (a whole day), an ISO time (2026-03-01T10:00Z), today, yesterday, or a span back from now: 12h, 7d, 2w, 3mo";

const text = (description: string, extra: Partial<PropertySchema> = {}): PropertySchema => ({
  type: "string",
  description,
  ...extra,
});
const count = (description: string, maximum: number): PropertySchema => ({
  type: "integer",
  description,
  minimum: 1,
  maximum,
});

function object(properties: Record<string, PropertySchema>, required: string[] = []): InputSchema {
  return { type: "object", properties, required, additionalProperties: false };
}

/** The budget property every tool takes; its maximum is the server's ceiling. */
export function maxCharsProperty(ceiling: number): PropertySchema {
  return {
    type: "integer",
    description: `The most characters the answer may have (default and most: ${ceiling}); what does not fit is cut, and the answer says how to get it`,
    minimum: MIN_MAX_CHARS,
    maximum: ceiling,
  };
}

const SESSION =
  "The session: its id, a unique prefix of its id (8 characters are usually enough), or its file path as search_sessions or list_sessions gave it";

/** The input schemas, by tool name, for a server whose answers are at most `ceiling` characters. */
export function inputSchemas(ceiling = DEFAULT_MAX_CHARS) {
  const maxChars = maxCharsProperty(ceiling);
  return {
    search_sessions: object(
      {
        query: text(
          'What to find. Words are ANDed and matched by stem and inside identifiers; "a phrase" or code such as auth.ts is a substring; -word excludes; re:REGEX is a JavaScript regular expression',
          { minLength: 1 },
        ),
        project: text("Only sessions whose working directory is this directory or inside it (absolute path)"),
        since: text(`Only entries at or after this time: ${TIME_HELP}`),
        until: text(`Only entries before the end of this time: ${TIME_HELP}`),
        role: text("Only entries of this role", { enum: ROLES }),
        limit: count("At most this many sessions (default 10)", 50),
        maxChars,
      },
      ["query"],
    ),
    read_session: object(
      {
        session: text(SESSION, { minLength: 1 }),
        entryId: text(
          "Show the entries around this entry (on its branch) instead of the session's current branch from the start",
          { minLength: 1 },
        ),
        before: {
          type: "integer",
          description: "With entryId: entries before it to show (default 5)",
          minimum: 0,
          maximum: 500,
        },
        after: {
          type: "integer",
          description: "With entryId: entries after it to show (default 5)",
          minimum: 0,
          maximum: 500,
        },
        limit: count("At most this many entries (default 100)", 500),
        maxChars,
      },
      ["session"],
    ),
    session_context: object({ session: text(SESSION, { minLength: 1 }), maxChars }, ["session"]),
    list_sessions: object({
      project: text("Only sessions whose working directory is this directory or inside it (absolute path)"),
      since: text(`Only sessions active at or after this time: ${TIME_HELP}`),
      limit: count("At most this many sessions, newest first (default 20)", 200),
      maxChars,
    }),
    usage_stats: object({
      since: text(`Only usage at or after this time: ${TIME_HELP}`),
      until: text(`Only usage before the end of this time: ${TIME_HELP}`),
      by: text("Rows by this (default model)", { enum: STATS_GROUPS }),
      maxChars,
    }),
  } satisfies Record<string, InputSchema>;
}

export type ToolName = keyof ReturnType<typeof inputSchemas>;

/** A value as the message shows it (short). */
function shown(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) return String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

function checkProperty(name: string, schema: PropertySchema, value: unknown): string | undefined {
  switch (schema.type) {
    case "string": {
      if (typeof value !== "string") return `${name} must be a string, got ${shown(value)}`;
      if (schema.minLength !== undefined && value.trim().length < schema.minLength)
        return `${name} must not be empty`;
      if (schema.enum && !schema.enum.includes(value))
        return `${name} must be one of ${schema.enum.join(", ")}, got ${shown(value)}`;
      return undefined;
    }
    case "integer": {
      if (typeof value !== "number" || !Number.isInteger(value))
        return `${name} must be a whole number, got ${shown(value)}`;
      const { minimum = Number.NEGATIVE_INFINITY, maximum = Number.POSITIVE_INFINITY } = schema;
      if (value < minimum || value > maximum)
        return `${name} must be from ${minimum} to ${maximum}, got ${value}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : `${name} must be true or false, got ${shown(value)}`;
  }
}

/**
 * The arguments of a call, checked against `schema`: unknown names, missing required ones and
 * values of the wrong type or range are a {@link ToolInputError} naming each problem. `null`
 * counts as left out (models send it for an optional argument).
 */
export function checkArguments(schema: InputSchema, args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== "object" || Array.isArray(args))
    throw new ToolInputError(`the arguments must be an object, got ${shown(args)}`);
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args as Record<string, unknown>)) {
    const property = schema.properties[name];
    if (!property) {
      problems.push(`unknown argument ${name} (known: ${Object.keys(schema.properties).join(", ")})`);
      continue;
    }
    if (value === null || value === undefined) continue;
    const problem = checkProperty(name, property, value);
    if (problem) problems.push(problem);
    else out[name] = value;
  }
  for (const name of schema.required)
    if (!(name in out) && !problems.some((p) => p.startsWith(`${name} `)))
      problems.push(`${name} is required`);
  if (problems.length > 0) throw new ToolInputError(problems.join("; "));
  return out;
}
