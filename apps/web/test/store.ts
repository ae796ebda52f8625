/**
 * A generated session store for the web app's tests, in pi's layout
 * (`<root>/--<cwd>--/<timestamp>_<id>.jsonl`): a session with a planted phrase, one with two
 * branches, one with payloads in every field a page shows, a fork that copies its parent's
 * entries (and usage), and random sessions from testkit's generator around them.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DraftType, arbSessionV3, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";

export const PLANTED = "zebra quantum marmalade";

/** A fake GitHub token (in GitHub's format) one session's tool output holds. */
export const LEAKED = "ghp_R8vXq2mLp9TzW4nK7bY3cF6hJ1sD5aG0eQuI";
export const PAYLOADS = {
  script: "<script>window.__pwned = 'script'</script>",
  img: "<img src=x onerror=\"window.__pwned = 'img'\">",
  link: "[click me](javascript:window.__pwned='link')",
  rawLink: "<a href=\"javascript:window.__pwned='a'\">raw link</a>",
  endScript: "</script><script>window.__pwned = 'end'</script>",
  svg: "<svg onload=\"window.__pwned='svg'\"></svg>",
  terminal: "\u001b[31mred\u001b[0m \u001b]0;title\u0007 cleared",
};
const ALL_PAYLOADS = Object.values(PAYLOADS).join("\n");

/** The entry types of the random sessions (testkit's draft types when the store was made). */
const STORE_ENTRY_TYPES: readonly DraftType[] = [
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "usage",
  "context_edit",
  "unknown",
];

const BASE = Date.UTC(2026, 0, 10, 9, 0, 0);
const iso = (s: number) => new Date(BASE + s * 1000).toISOString();

type Obj = Record<string, unknown>;

function header(id: string, cwd: string, at: number, extra: Obj = {}): Obj {
  return { type: "session", version: 3, id, timestamp: iso(at), cwd, ...extra };
}

function user(id: string, parentId: string | null, text: string, at: number): Obj {
  return {
    type: "message",
    id,
    parentId,
    timestamp: iso(at),
    message: { role: "user", content: [{ type: "text", text }], timestamp: BASE + at * 1000 },
  };
}

function assistant(
  id: string,
  parentId: string | null,
  text: string,
  at: number,
  cost = 0.01,
  extra: Obj[] = [],
): Obj {
  return {
    type: "message",
    id,
    parentId,
    timestamp: iso(at),
    message: {
      role: "assistant",
      content: [{ type: "text", text }, ...extra],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: {
        input: 100,
        output: 50,
        cacheRead: 1000,
        cacheWrite: 10,
        totalTokens: 1160,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
      },
      stopReason: extra.length > 0 ? "toolUse" : "stop",
      timestamp: BASE + at * 1000,
    },
  };
}

function toolResult(id: string, parentId: string, callId: string, text: string, at: number): Obj {
  return {
    type: "message",
    id,
    parentId,
    timestamp: iso(at),
    message: {
      role: "toolResult",
      toolCallId: callId,
      toolName: "bash",
      content: [{ type: "text", text }],
      isError: false,
      timestamp: BASE + at * 1000,
    },
  };
}

/** pi's directory name for a cwd. */
export function dirOf(cwd: string): string {
  return `--${cwd.replace(/^\//, "").replace(/\//g, "-")}--`;
}

export interface TestStore {
  root: string;
  /** Session ids of the hand-made sessions. */
  ids: { planted: string; branched: string; payload: string; fork: string; reader: string; writer: string };
  /** The entry with the planted phrase, and the first entry of each branch. */
  entries: { planted: string; leftBranch: string; rightBranch: string };
  paths: { planted: string; branched: string; payload: string; fork: string; reader: string; writer: string };
  /** Appends one entry (a JSON line) to a session file, as pi does. */
  append(path: string, entry: Obj): void;
  cleanup(): void;
}

function write(root: string, cwd: string, head: Obj, entries: Obj[]): string {
  const dir = join(root, dirOf(cwd));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${String(head.timestamp).replace(/[:.]/g, "-")}_${head.id}.jsonl`);
  writeFileSync(path, toJsonl({ header: head, entries }));
  return path;
}

/** Writes the store (see the module header) with `random` generated sessions besides. */
export function makeStore(random = 20): TestStore {
  const base = mkdtempSync(join(tmpdir(), "pi-session-web-"));
  const root = join(base, "sessions");
  mkdirSync(root, { recursive: true });
  const ids = {
    planted: "0199aaaa-0000-7000-8000-000000000001",
    branched: "0199aaaa-0000-7000-8000-000000000002",
    payload: "0199aaaa-0000-7000-8000-000000000003",
    fork: "0199aaaa-0000-7000-8000-000000000004",
    reader: "0199aaaa-0000-7000-8000-000000000005",
    writer: "0199aaaa-0000-7000-8000-000000000006",
  };
  const plantedEntries = [
    user("a0000001", null, "How do we fix the flux capacitor?", 10),
    assistant("a0000002", "a0000001", "First we check the wiring.", 20, 0.02),
    user("a0000003", "a0000002", "And then?", 30),
    assistant("a0000004", "a0000003", `Then we say the words: ${PLANTED}, and it works.`, 40, 0.03),
  ];
  const planted = write(root, "/home/dev/alpha", header(ids.planted, "/home/dev/alpha", 5), plantedEntries);
  const branched = write(root, "/home/dev/beta", header(ids.branched, "/home/dev/beta", 100), [
    user("b0000001", null, "Which road should we take?", 110),
    assistant("b0000002", "b0000001", "There are two roads.", 120, 0.01),
    user("b0000003", "b0000002", "take the left road", 130),
    assistant("b0000004", "b0000003", "The left road leads to the mountains.", 140, 0.01),
    user("b0000005", "b0000002", "take the right road", 150),
    assistant("b0000006", "b0000005", "The right road leads to the sea.", 160, 0.01),
  ]);
  const payload = write(root, "/home/dev/gamma", header(ids.payload, "/home/dev/gamma", 200), [
    user("c0000001", null, `user says ${ALL_PAYLOADS}`, 210),
    assistant("c0000002", "c0000001", `assistant says ${ALL_PAYLOADS}`, 220, 0.01, [
      { type: "toolCall", id: "call_1", name: "bash", arguments: { command: `echo ${PAYLOADS.script}` } },
    ]),
    toolResult("c0000003", "c0000002", "call_1", `tool output ${ALL_PAYLOADS}`, 230),
    {
      type: "label",
      id: "c0000004",
      parentId: "c0000003",
      timestamp: iso(240),
      targetId: "c0000003",
      label: PAYLOADS.img,
    },
    {
      type: "session_info",
      id: "c0000005",
      parentId: "c0000004",
      timestamp: iso(250),
      name: `name ${PAYLOADS.script}`,
    },
  ]);
  const fork = write(
    root,
    "/home/dev/alpha",
    header(ids.fork, "/home/dev/alpha", 300, { parentSession: planted }),
    [...plantedEntries, assistant("a0000005", "a0000004", "A fork's own answer.", 310, 0.05)],
  );
  // File activity: one session reads and edits src/app.ts (relative to its cwd), another writes it by its absolute path.
  const call = (id: string, name: string, args: Obj) => ({ type: "toolCall", id, name, arguments: args });
  const reader = write(root, "/home/dev/delta", header(ids.reader, "/home/dev/delta", 320), [
    user("d0000001", null, "Tidy the app", 321),
    assistant("d0000002", "d0000001", "Reading it.", 322, 0.01, [
      call("call_r", "read", { path: "src/app.ts" }),
    ]),
    assistant("d0000003", "d0000002", "Editing it.", 323, 0.01, [
      call("call_e", "edit", { path: "src/app.ts", edits: [{ oldText: "a", newText: "b" }] }),
      call("call_n", "read", { path: "README.md" }),
    ]),
  ]);
  const writer = write(root, "/home/dev/epsilon", header(ids.writer, "/home/dev/epsilon", 330), [
    user("e0000001", null, "Write the app anew", 331),
    assistant("e0000002", "e0000001", "Writing it.", 332, 0.01, [
      call("call_w", "write", { path: "/home/dev/delta/src/app.ts", content: "x" }),
    ]),
  ]);
  // A session holding a (fake) credential in a tool's output: the secret scan marks it.
  write(root, "/home/dev/zeta", header("0199aaaa-0000-7000-8000-000000000007", "/home/dev/zeta", 340), [
    user("f0000001", null, "Print the environment", 341),
    assistant("f0000002", "f0000001", "Printing it.", 342, 0.01, [
      call("call_p", "bash", { command: "printenv" }),
    ]),
    toolResult("f0000003", "f0000002", "call_p", `HOME=/home/dev\nGITHUB_TOKEN=${LEAKED}\n`, 343),
  ]);
  // A fixed seed over a fixed list of entry types: a type added to testkit's generator leaves
  // these sessions as they are (drawn from every type, they would all change).
  const samples = fc.sample(arbSessionV3({ maxEntries: 12, entryTypes: STORE_ENTRY_TYPES }), {
    numRuns: random,
    seed: 2323,
  });
  samples.forEach((s, i) => {
    const cwd = `/home/dev/random-${i % 4}`;
    const head = {
      ...(s.header as unknown as Obj),
      cwd,
      id: `0199bbbb-0000-7000-8000-${String(i).padStart(12, "0")}`,
      timestamp: iso(400 + i),
    };
    write(root, cwd, head, s.entries as unknown as Obj[]);
  });
  return {
    root,
    ids,
    entries: { planted: "a0000004", leftBranch: "b0000003", rightBranch: "b0000005" },
    paths: { planted, branched, payload, fork, reader, writer },
    append: (path, entry) => appendFileSync(path, `${JSON.stringify(entry)}\n`),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export { assistant, user };
