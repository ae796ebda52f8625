/**
 * Sessions for the render tests: one with every entry type and message role (and what no
 * reader knows), one with planted payloads (HTML, scripts, terminal escapes) in every place
 * session text can appear, and a deterministic large session shaped like a real one.
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";

type Obj = Record<string, unknown>;

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
const iso = (i: number) => new Date(T0 + i * 60_000).toISOString();
const ms = (i: number) => T0 + i * 60_000 + 500;

const usage = {
  input: 1200,
  output: 340,
  cacheRead: 800,
  cacheWrite: 0,
  totalTokens: 2340,
  cost: { input: 0.0036, output: 0.0051, cacheRead: 0.00024, cacheWrite: 0, total: 0.00894 },
};

export const HEADER: SessionHeader = {
  type: "session",
  version: 3,
  id: "019a4c1e-0000-7000-8000-000000000001",
  timestamp: iso(0),
  cwd: "/home/dev/projects/webapp",
};

/** A 1x1 transparent PNG. */
export const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/**
 * Entries, each the child of the one before (the first of `parent`), with the ids they are
 * written with (`e<7 digits>`); an entry's time is minute <its id's number>. An entry added
 * anywhere, with an id of its own, changes no other entry's id or time.
 */
function chain(bodies: (Obj & { id: string })[], parent: string | null = null): AnyEntry[] {
  const out: AnyEntry[] = [];
  let prev = parent;
  for (const { type, id, ...rest } of bodies) {
    out.push({ type, id, parentId: prev, timestamp: iso(Number(id.slice(1))), ...rest } as AnyEntry);
    prev = id;
  }
  return out;
}

/** Entries as {@link chain} makes them, numbered from `start` (ids `e<7 digits>`) in order. */
function numberedChain(bodies: Obj[], start = 1, parent: string | null = null): AnyEntry[] {
  return chain(
    bodies.map((body, k) => ({ ...body, id: `e${String(start + k).padStart(7, "0")}` })),
    parent,
  );
}

/**
 * Every entry type, every message role (legacy `hookMessage` and an unknown role too), an
 * unknown entry type and unknown content blocks, with one branch point (two children of the
 * first assistant answer) and two labels.
 */
export function everyKindSession(): { header: SessionHeader; entries: AnyEntry[] } {
  const main = chain([
    { id: "e0000001", type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" },
    { id: "e0000002", type: "thinking_level_change", thinkingLevel: "high" },
    {
      id: "e0000003",
      type: "message",
      message: {
        role: "user",
        content: [
          { type: "text", text: "Read src/limit.ts and fix the off-by-one." },
          { type: "image", data: PNG_1PX, mimeType: "image/png" },
        ],
        timestamp: ms(3),
      },
    },
    {
      id: "e0000004",
      type: "message",
      message: {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking: "The limit check uses > instead of >=.",
            thinkingSignature: "sig-abc",
          },
          { type: "text", text: "Let me read the file." },
          { type: "toolCall", id: "call_read", name: "read", arguments: { path: "src/limit.ts" } },
          { type: "finalAnswer", value: 42 },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage,
        stopReason: "toolUse",
        timestamp: ms(4),
      },
    },
    {
      id: "e0000005",
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "call_read",
        toolName: "read",
        content: [{ type: "text", text: "export function allow(n: number) {\n  return n > LIMIT;\n}" }],
        isError: false,
        timestamp: ms(5),
      },
    },
    {
      id: "e0000006",
      type: "message",
      message: {
        role: "assistant",
        content: [
          {
            type: "toolCall",
            id: "call_edit",
            name: "edit",
            arguments: { path: "src/limit.ts", oldText: "n > LIMIT", newText: "n >= LIMIT" },
          },
          { type: "toolCall", id: "call_bash", name: "bash", arguments: { command: "npm test -- limit" } },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage,
        stopReason: "toolUse",
        timestamp: ms(6),
      },
    },
    {
      id: "e0000007",
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "call_bash",
        toolName: "bash",
        content: [{ type: "text", text: "FAIL limit.test.ts\n  expected 10, got 9" }],
        isError: true,
        timestamp: ms(7),
      },
    },
    {
      id: "e0000008",
      type: "message",
      message: {
        role: "bashExecution",
        command: "git diff --stat",
        output: " src/limit.ts | 2 +-",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: ms(8),
      },
    },
    {
      id: "e0000009",
      type: "message",
      message: {
        role: "custom",
        customType: "lint",
        content: "eslint: 0 errors",
        display: true,
        timestamp: ms(9),
      },
    },
    {
      id: "e0000010",
      type: "message",
      message: {
        role: "hookMessage",
        customType: "legacy-hook",
        content: [{ type: "text", text: "old hook text" }],
        display: false,
        timestamp: ms(10),
      },
    },
    {
      id: "e0000011",
      type: "message",
      message: {
        role: "system",
        content: "You are pi.",
        toolsAdded: [{ name: "grep", description: "Search files.", parameters: { type: "object" } }],
        timestamp: ms(11),
      },
    },
    {
      id: "e0000012",
      type: "message",
      message: {
        role: "branchSummary",
        summary: "Summary of a branch message.",
        fromId: "e0000003",
        timestamp: ms(12),
      },
    },
    {
      id: "e0000013",
      type: "message",
      message: {
        role: "compactionSummary",
        summary: "Summary of a compaction message.",
        tokensBefore: 9000,
        timestamp: ms(13),
      },
    },
    {
      id: "e0000014",
      type: "message",
      message: { role: "critic", verdict: "looks fine", timestamp: ms(14) },
    },
    {
      id: "e0000015",
      type: "compaction",
      summary: "## Goal\nFix the limit.\n\n## Done\nThe check uses >=.",
      firstKeptEntryId: "e0000005",
      tokensBefore: 18250,
      details: { readFiles: ["src/limit.ts"], modifiedFiles: ["src/limit.ts"] },
    },
    { id: "e0000016", type: "custom", customType: "todo-state", data: { open: 1, done: 3 } },
    {
      id: "e0000017",
      type: "custom_message",
      customType: "ci-status",
      content: "CI is green on main.",
      display: false,
      details: { run: 7 },
    },
    { id: "e0000018", type: "label", targetId: "e0000004", label: "plan" },
    { id: "e0000019", type: "session_info", name: "limit fix" },
    {
      id: "e0000020",
      type: "usage",
      kind: "title-generation",
      provider: "openai",
      model: "gpt-4.1-mini",
      usage: { ...usage, input: 300, output: 12 },
    },
    {
      id: "e0000021",
      type: "context_edit",
      targetId: "e0000003",
      replacement: { content: "Fix the limit check." },
    },
    { id: "e0000022", type: "future_thing", payload: { x: 1 } },
    {
      id: "e0000023",
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Fixed: the limit is now inclusive." }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage,
        stopReason: "stop",
        timestamp: ms(23),
      },
    },
  ]);
  // A side branch from the first assistant answer, abandoned, and a branch summary beside it.
  const side = chain(
    [
      {
        id: "e0000040",
        type: "message",
        message: { role: "user", content: "Try a Redis counter instead.", timestamp: ms(40) },
      },
      {
        id: "e0000041",
        type: "message",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "Redis is not available in tests." }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: "stop",
          timestamp: ms(41),
        },
      },
    ],
    "e0000004",
  );
  const summary = chain(
    [{ id: "e0000042", type: "branch_summary", fromId: "e0000041", summary: "Tried Redis; dropped." }],
    "e0000004",
  );
  const label = chain([{ id: "e0000043", type: "label", targetId: "e0000041", label: "redis" }], "e0000041");
  // File order: the main line to the branch point, the side branch, then the rest of the main
  // line (its last entry is the leaf).
  const branchPoint = main.findIndex((e) => e.id === "e0000004") + 1;
  const entries = [...main.slice(0, branchPoint), ...side, ...summary, ...label, ...main.slice(branchPoint)];
  return { header: HEADER, entries };
}

/** Payloads that must do nothing in a page or on a terminal. Each sets window.__pwned when it runs. */
export const PAYLOADS = {
  script: "<script>window.__pwned = 'script'</script>",
  img: "<img src=x onerror=\"window.__pwned = 'img'\">",
  link: "[click me](javascript:window.__pwned='link')",
  rawLink: "<a href=\"javascript:window.__pwned='a'\">raw link</a>",
  endScript: "</script><script>window.__pwned = 'end'</script>",
  comment: "<!-- <script>window.__pwned = 'comment'</script> -->",
  svg: "<svg onload=\"window.__pwned='svg'\"></svg>",
  separators: "line\u2028separator\u2029paragraph",
  terminal:
    "\u001b[31mred\u001b[0m \u001b]0;title\u0007 \u001b[2J\u001b[H cleared \u0008\u0008 \r overwritten",
  bidi: "abc\u202edcba\u202c",
};

/** A session with every payload in user text, assistant text, tool arguments, tool output, labels and names. */
export function payloadSession(): { header: SessionHeader; entries: AnyEntry[] } {
  const all = Object.values(PAYLOADS).join("\n");
  const entries = chain([
    {
      id: "e0000001",
      type: "message",
      message: { role: "user", content: [{ type: "text", text: `user ${all}` }], timestamp: ms(1) },
    },
    {
      id: "e0000002",
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: `thinking ${all}` },
          { type: "text", text: `assistant ${all}` },
          { type: "toolCall", id: "call_x", name: `bash${PAYLOADS.script}`, arguments: { command: all } },
        ],
        api: "x",
        provider: `p${PAYLOADS.img}`,
        model: `m${PAYLOADS.endScript}`,
        usage,
        stopReason: "toolUse",
        timestamp: ms(2),
      },
    },
    {
      id: "e0000003",
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "call_x",
        toolName: `bash${PAYLOADS.endScript}`,
        content: [
          { type: "text", text: `output ${all}` },
          { type: "image", data: "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", mimeType: "image/svg+xml" },
          {
            type: "image",
            data: `${PNG_1PX}"><script>window.__pwned='img-data'</script>`,
            mimeType: "image/png",
          },
        ],
        isError: false,
        timestamp: ms(3),
      },
    },
    { id: "e0000004", type: "label", targetId: "e0000003", label: `label ${PAYLOADS.script}` },
    { id: "e0000005", type: "session_info", name: `name ${PAYLOADS.endScript}` },
    { id: "e0000006", type: `type${PAYLOADS.script}`, data: all },
  ]);
  return { header: { ...HEADER, cwd: `/tmp/${PAYLOADS.endScript}` }, entries };
}

/** mulberry32: small, seeded, reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  "the a to of and in is it that for on with as this be are not file function test session entry parent id tree branch leaf compaction summary context model token read write append lock stream parse json line byte offset error warning fix refactor build package module import export type interface const let return async await value key index path cwd directory list cache".split(
    " ",
  );
const CODE = [
  "export function limit(n: number): boolean {",
  "  if (n >= LIMIT) return false;",
  "  return true;",
  "}",
  'import { readFile } from "node:fs/promises";',
  "const entries = lines.map((line) => JSON.parse(line));",
  "for (const entry of entries) index.append(entry);",
  "  // keep the leaf where it was",
  "PASS src/limit.test.ts (12 tests) 41 ms",
  "FAIL src/tree.test.ts > builds the index",
];

/**
 * A deterministic session of `count` entries shaped like a long real one: turns of a user
 * prompt, assistant steps with thinking and tool calls, tool results of log-uniform size,
 * bash runs, now and then a model change, a label, a branch with its summary, a compaction.
 */
export function largeSession(count: number, seed = 1): { header: SessionHeader; entries: AnyEntry[] } {
  const r = prng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const logLen = (lo: number, hi: number) => Math.floor(lo * (hi / lo) ** r());
  const words = (n: number) => Array.from({ length: n }, () => WORDS[int(0, WORDS.length - 1)]).join(" ");
  const code = (lines: number) =>
    Array.from({ length: lines }, () => CODE[int(0, CODE.length - 1)]).join("\n");
  const entries: AnyEntry[] = [];
  const path: string[] = [];
  let leaf: string | null = null;
  let time = T0;
  const emit = (body: Obj, moveLeaf = true) => {
    const id = (Math.imul(entries.length + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0");
    time += int(200, 20_000);
    const { type, ...rest } = body;
    entries.push({ type, id, parentId: leaf, timestamp: new Date(time).toISOString(), ...rest } as AnyEntry);
    if (moveLeaf) {
      leaf = id;
      path.push(id);
    }
    return id;
  };
  emit({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  while (entries.length < count) {
    const roll = r();
    if (roll < 0.004 && path.length > 30) {
      const back = int(2, 12);
      const fromId = leaf;
      path.length -= back;
      leaf = path[path.length - 1] ?? null;
      emit({ type: "branch_summary", fromId, summary: `Abandoned: ${words(logLen(20, 200))}` });
      continue;
    }
    if (roll < 0.006 && path.length > 40) {
      emit({
        type: "compaction",
        summary: `## Goal\n${words(logLen(40, 200))}\n\n## Progress\n${words(logLen(60, 300))}`,
        firstKeptEntryId: path[path.length - int(10, 30)],
        tokensBefore: int(50_000, 180_000),
      });
      continue;
    }
    if (roll < 0.02 && path.length > 5) {
      emit({ type: "label", targetId: path[path.length - int(1, 5)], label: `checkpoint-${int(1, 99)}` });
      continue;
    }
    if (roll < 0.06) {
      emit({
        type: "message",
        message: {
          role: "bashExecution",
          command: `npm test -- ${words(2)}`,
          output: code(logLen(2, 300)),
          exitCode: r() < 0.8 ? 0 : 1,
          cancelled: false,
          truncated: false,
          timestamp: time,
        },
      });
      continue;
    }
    emit({
      type: "message",
      message: { role: "user", content: [{ type: "text", text: words(logLen(5, 200)) }], timestamp: time },
    });
    const steps = int(0, 4);
    for (let s = 0; s <= steps && entries.length < count; s++) {
      const last = s === steps;
      const content: Obj[] = [];
      if (r() < 0.5)
        content.push({ type: "thinking", thinking: words(logLen(10, 300)), thinkingSignature: "c2ln" });
      content.push({ type: "text", text: words(logLen(5, last ? 400 : 60)) });
      const calls: { id: string; name: string }[] = [];
      if (!last) {
        for (let c = int(1, 2); c > 0; c--) {
          const name = ["read", "bash", "edit", "grep"][int(0, 3)] as string;
          const id = `toolu_${entries.length}_${c}`;
          calls.push({ id, name });
          content.push({
            type: "toolCall",
            id,
            name,
            arguments: name === "bash" ? { command: code(1) } : { path: `src/${words(1)}.ts` },
          });
        }
      }
      emit({
        type: "message",
        message: {
          role: "assistant",
          content,
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: last ? "stop" : "toolUse",
          timestamp: time,
        },
      });
      for (const call of calls) {
        if (entries.length >= count) break;
        emit({
          type: "message",
          message: {
            role: "toolResult",
            toolCallId: call.id,
            toolName: call.name,
            content: [{ type: "text", text: code(logLen(3, 400)) }],
            isError: r() < 0.05,
            timestamp: time,
          },
        });
      }
    }
  }
  return { header: { ...HEADER, id: "019a4c1e-0000-7000-8000-00000000b160" }, entries };
}

/** The one-line change inside a six-line edit, as pi's edit tool stores its diff (`details.diff`). */
export const PI_EDIT_DIFF = [
  "    ...",
  "  3 ",
  "  4 export function allow(n: number): boolean {",
  "  5   // inclusive: the tenth request is allowed",
  "- 6   return n > LIMIT;",
  "+ 6   return n <= LIMIT;",
  "  7 }",
  "  8 ",
  "    ...",
].join("\n");

/**
 * What reading a session is about: two parallel reads answered in the other order, an edit
 * whose result holds pi's diff, an edit in the older argument shape without one, coloured bash
 * output with a screen-clearing escape, a 117 KB line, Markdown with a nested list and a link
 * with parentheses, and an abandoned branch with a secret in it (for `--leaf`).
 */
export function readingSession(): { header: SessionHeader; entries: AnyEntry[] } {
  const assistant = (content: Obj[], i: number) => ({
    type: "message",
    message: {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage,
      stopReason: "toolUse",
      timestamp: ms(i),
    },
  });
  const result = (toolCallId: string, toolName: string, text: string, i: number, details?: Obj) => ({
    type: "message",
    message: {
      role: "toolResult",
      toolCallId,
      toolName,
      content: [{ type: "text", text }],
      ...(details ? { details } : {}),
      isError: false,
      timestamp: ms(i),
    },
  });
  const main = numberedChain([
    {
      type: "message",
      message: {
        role: "user",
        content: "The tenth request is refused; fix it. Is this right?",
        timestamp: ms(1),
      },
    },
    assistant(
      [
        { type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/limit.ts" } },
        { type: "toolCall", id: "call_b", name: "read", arguments: { path: "src/greet.py" } },
      ],
      2,
    ),
    result("call_b", "read", 'def greet(name):\n    return f"Hello {name}"', 3),
    result("call_a", "read", "export const LIMIT = 10;\nexport function allow(n: number) {}", 4),
    assistant(
      [
        {
          type: "toolCall",
          id: "call_edit",
          name: "edit",
          arguments: {
            path: "src/limit.ts",
            edits: [{ oldText: "return n > LIMIT;", newText: "return n <= LIMIT;" }],
          },
        },
      ],
      5,
    ),
    result("call_edit", "edit", "Successfully replaced 1 block(s) in src/limit.ts.", 6, {
      diff: PI_EDIT_DIFF,
      patch: "",
      firstChangedLine: 6,
    }),
    assistant(
      [
        {
          type: "toolCall",
          id: "call_legacy",
          name: "edit",
          arguments: { path: "src/greet.py", oldText: "a\nb\nc\nd\ne\nf", newText: "a\nb\nC\nd\ne\nf" },
        },
        { type: "toolCall", id: "call_test", name: "bash", arguments: { command: "npm test" } },
        { type: "toolCall", id: "call_long", name: "bash", arguments: { command: "cat one-line.json" } },
      ],
      7,
    ),
    result("call_legacy", "edit", "Successfully replaced 1 block(s) in src/greet.py.", 8),
    result(
      "call_test",
      "bash",
      "\u001b[32m✓ 12 passed\u001b[0m \u001b[1;31m✗ 1 failed\u001b[0m \u001b[2Jafter",
      9,
    ),
    result("call_long", "bash", "x".repeat(117_000), 10),
    {
      type: "message",
      message: {
        role: "assistant",
        content: [
          {
            type: "text",
            text: "Fixed ✅. It is done:\n\n1. `allow` takes the tenth\n   - the check is `n <= LIMIT`\n     - tested\n2. greeting\n\nSee [the docs (v2)](https://example.com/docs_(v2)) and this is it.",
          },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage,
        stopReason: "stop",
        timestamp: ms(11),
      },
    },
  ]);
  // An abandoned branch from the first user message.
  const side = numberedChain(
    [
      {
        type: "message",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "Abandoned: the deploy key is SIDE-BRANCH-SECRET." }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: "stop",
          timestamp: ms(30),
        },
      },
    ],
    30,
    (main[0] as AnyEntry).id,
  );
  return { header: HEADER, entries: [...main, ...side] };
}
