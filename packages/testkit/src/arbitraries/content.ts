/**
 * Content blocks (text, thinking, images, tool calls, blocks of unknown types) and an
 * assistant message's usage, as pi writes them.
 */
import fc from "fast-check";
import type {
  ImageContent,
  TextContent,
  ThinkingContent,
  ToolCall,
  UnknownContent,
  Usage,
} from "@pi-session/format";
import { rec } from "./records.js";
import {
  arbCost,
  arbJsonValue,
  arbKey,
  arbSmallInt,
  arbText,
  arbWords,
  compact,
  sometimes,
} from "./values.js";

export const arbTextContent: fc.Arbitrary<TextContent> = rec<TextContent>(
  { type: fc.constant("text"), text: arbText, textSignature: fc.base64String({ maxLength: 16 }) },
  ["type", "text"],
);

export const arbThinkingContent: fc.Arbitrary<ThinkingContent> = rec<ThinkingContent>(
  {
    type: fc.constant("thinking"),
    thinking: arbText,
    thinkingSignature: fc.base64String({ maxLength: 16 }),
    redacted: fc.boolean(),
  },
  ["type", "thinking"],
);

export const arbImageContent: fc.Arbitrary<ImageContent> = rec<ImageContent>({
  type: fc.constant("image"),
  data: fc.base64String({ maxLength: 24 }),
  mimeType: fc.constantFrom("image/png", "image/jpeg", "image/gif", "image/webp"),
});

export const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"];

export const arbToolCallId: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^toolu_[0-9A-Za-z]{12}$/),
  fc.stringMatching(/^call_[0-9a-z]{10}$/),
);

export const arbToolCall: fc.Arbitrary<ToolCall> = rec<ToolCall>(
  {
    type: fc.constant("toolCall"),
    id: arbToolCallId,
    name: fc.constantFrom(...TOOL_NAMES),
    arguments: fc.dictionary(arbKey, arbJsonValue, { maxKeys: 3, noNullPrototype: true }),
    thoughtSignature: fc.base64String({ maxLength: 12 }),
    namespace: fc.constantFrom("default", "mcp"),
    argumentsError: arbWords,
  },
  ["type", "id", "name", "arguments"],
);

/** A block of a type no reader knows (e.g. `finalAnswer`); readers must keep it verbatim. */
export const arbUnknownContent: fc.Arbitrary<UnknownContent> = fc
  .tuple(fc.constantFrom("finalAnswer", "citation", "redacted_thinking", "x-future"), arbJsonValue, arbText)
  .map(([type, payload, text]) => ({ type, text, payload }));

// ---------------------------------------------------------------------------------------
// Usage

export const arbUsage: fc.Arbitrary<Usage> = fc
  .record(
    {
      input: arbSmallInt,
      output: arbSmallInt,
      cacheRead: arbSmallInt,
      cacheWrite: arbSmallInt,
      cost: fc.record(
        {
          input: arbCost,
          output: arbCost,
          cacheRead: arbCost,
          cacheWrite: arbCost,
          totalFromProvider: sometimes(fc.boolean(), 3),
        },
        { noNullPrototype: true },
      ),
      cacheWrite1h: sometimes(arbSmallInt, 3),
      reasoning: sometimes(arbSmallInt, 3),
    },
    { noNullPrototype: true },
  )
  .map((u) => {
    const c = u.cost;
    const cost = compact({
      input: c.input,
      output: c.output,
      cacheRead: c.cacheRead,
      cacheWrite: c.cacheWrite,
      total: Math.round((c.input + c.output + c.cacheRead + c.cacheWrite) * 1e6) / 1e6,
      totalFromProvider: c.totalFromProvider,
    });
    return compact({
      input: u.input,
      output: u.output,
      cacheRead: u.cacheRead,
      cacheWrite: u.cacheWrite,
      totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite,
      cost,
      cacheWrite1h: u.cacheWrite1h,
      reasoning: u.reasoning,
    }) as Usage;
  });
