/**
 * Schemas of content blocks (text, thinking, image, tool call, and the fallback for block
 * types the format does not know) and of token usage. Messages and entries are built from
 * these (`messages.ts`, `entries.ts`).
 */
import type { TSchema } from "typebox";
import { Type } from "./typebox.js";
import { Bool, Num, Opt, OtherString, type SchemaBuilder, Str } from "./builder.js";

const KNOWN_BLOCK_TYPES = ["text", "thinking", "image", "toolCall"];

export interface ContentSchemas {
  TextContent: TSchema;
  ThinkingContent: TSchema;
  ImageContent: TSchema;
  ToolCall: TSchema;
  UnknownContent: TSchema;
  /** A user message's content: a string or text and image blocks. */
  UserContent: TSchema;
  AssistantContent: TSchema;
  ToolResultContent: TSchema;
  /** The content a context edit may put in place of a message's. */
  ReplacementContent: TSchema;
  Usage: TSchema;
  UsageCost: TSchema;
}

export function contentSchemas(build: SchemaBuilder): ContentSchemas {
  const { object: Obj, openObject: Open, strict } = build;
  const TextContent = Obj({ type: Type.Literal("text"), text: Str(), textSignature: Opt(Str()) });
  const ThinkingContent = Obj({
    type: Type.Literal("thinking"),
    thinking: Str(),
    thinkingSignature: Opt(Str()),
    redacted: Opt(Bool()),
  });
  const ImageContent = Obj({ type: Type.Literal("image"), data: Str(), mimeType: Str() });
  const ToolCall = Obj({
    type: Type.Literal("toolCall"),
    id: Str(),
    name: Str(),
    // Any JSON object. Not `Type.Record(String, Unknown)`: same JSON Schema meaning, but its
    // compiled check walks `Object.entries` with a regex test per key for nothing.
    arguments: Type.Unsafe<Record<string, unknown>>({ type: "object" }),
    thoughtSignature: Opt(Str()),
    namespace: Opt(Str()),
    argumentsError: Opt(Str()),
  });
  const UnknownContent = Open(
    { type: OtherString(KNOWN_BLOCK_TYPES) },
    "A content block of a type this schema does not know; kept verbatim.",
  );
  /** A union of the known block types given, plus unknown blocks in open mode. */
  const blocks = (...known: TSchema[]): TSchema => Type.Union(strict ? known : [...known, UnknownContent]);

  const UsageCost = Obj({
    input: Num(),
    output: Num(),
    cacheRead: Num(),
    cacheWrite: Num(),
    total: Num(),
    totalFromProvider: Opt(Bool()),
  });
  const Usage = Obj({
    input: Num(),
    output: Num(),
    cacheRead: Num(),
    cacheWrite: Num(),
    // Files written before late 2025 lack it (see the large-session fixture); strict requires it.
    totalTokens: strict ? Num() : Opt(Num()),
    cost: UsageCost,
    cacheWrite1h: Opt(Num()),
    reasoning: Opt(Num()),
  });

  return {
    TextContent,
    ThinkingContent,
    ImageContent,
    ToolCall,
    UnknownContent,
    UserContent: Type.Union([Str(), Type.Array(blocks(TextContent, ImageContent))]),
    AssistantContent: Type.Array(blocks(TextContent, ThinkingContent, ToolCall)),
    ToolResultContent: Type.Array(blocks(TextContent, ImageContent)),
    ReplacementContent: Type.Union([
      Str(),
      Type.Array(blocks(TextContent, ImageContent, ThinkingContent, ToolCall)),
    ]),
    Usage,
    UsageCost,
  };
}
