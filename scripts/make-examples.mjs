#!/usr/bin/env node
// Writes the bundled example sessions in examples/sessions/ (committed; rerun only to change them).
// They are hand-designed to cover what a reader meets in real stores: a v1 file (no ids, a
// compaction by line index), a v2 file (tree, legacy hookMessage role) and v3 files with
// branches, a branch summary, compactions, labels, a session name, custom entries, a usage
// entry, a context edit, and a fork of another session (header parentSession).
// Everything is deterministic: fixed ids and timestamps.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "examples", "sessions");
const base = Date.parse("2026-11-02T09:00:00.000Z");
let tick = 0;
const at = () => {
  tick += 1;
  const ms = base + tick * 37_000;
  return { iso: new Date(ms).toISOString(), ms };
};

const usage = (input, output, cacheRead = 0, cacheWrite = 0, rate = [3, 15, 0.3, 3.75]) => {
  const cost = {
    input: (input * rate[0]) / 1e6,
    output: (output * rate[1]) / 1e6,
    cacheRead: (cacheRead * rate[2]) / 1e6,
    cacheWrite: (cacheWrite * rate[3]) / 1e6,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
};
const user = (text, t) => ({ role: "user", content: [{ type: "text", text }], timestamp: t.ms });
const assistant = (content, t, u, model = "claude-sonnet-4-5", stopReason = "stop") => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model,
  usage: u,
  stopReason,
  timestamp: t.ms,
});
const text = (s) => ({ type: "text", text: s });
const toolResult = (id, name, out, t) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text: out }],
  isError: false,
  timestamp: t.ms,
});

function write(cwdDir, header, entries) {
  const dir = join(root, cwdDir);
  mkdirSync(dir, { recursive: true });
  const name = `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`;
  const lines = [header, ...entries].map((e) => JSON.stringify(e)).join("\n");
  writeFileSync(join(dir, name), `${lines}\n`);
  return join(dir, name);
}

// ---------------------------------------------------------------------------------------
// v1: linear, no ids, compaction with a header-inclusive firstKeptEntryIndex.
{
  const h = at();
  const header = {
    type: "session",
    id: "3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69",
    timestamp: h.iso,
    cwd: "/home/dev/projects/cli-tool",
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
    thinkingLevel: "off",
  };
  const e = [];
  const msg = (m, t) => ({ type: "message", timestamp: t.iso, message: m });
  let t = at();
  e.push(msg(user("Add a --verbose flag to the CLI.", t), t));
  t = at();
  e.push(
    msg(
      assistant(
        [
          text("I'll look at the argument parser first."),
          { type: "toolCall", id: "toolu_v1_01", name: "read", arguments: { path: "src/args.ts" } },
        ],
        t,
        usage(1200, 80, 0, 900),
        "claude-sonnet-4-5",
        "toolUse",
      ),
      t,
    ),
  );
  t = at();
  e.push(msg(toolResult("toolu_v1_01", "read", "export function parse(argv: string[]) { /* ... */ }", t), t));
  t = at();
  e.push(
    msg(assistant([text("Added `--verbose` and wired it to the logger.")], t, usage(1500, 120, 900)), t),
  );
  t = at();
  e.push({ type: "thinking_level_change", timestamp: t.iso, thinkingLevel: "medium" });
  t = at();
  e.push(msg(user("Now write a test for it.", t), t));
  t = at();
  e.push(msg(assistant([text("Test added in test/args.test.ts; it passes.")], t, usage(1800, 150, 1400)), t));
  t = at();
  // Index 6 (header = 0) is the user message "Now write a test for it."
  e.push({
    type: "compaction",
    timestamp: t.iso,
    summary: "The user asked for a --verbose flag; it was added to src/args.ts and wired to the logger.",
    firstKeptEntryIndex: 6,
    tokensBefore: 5230,
  });
  t = at();
  e.push(msg(user("Thanks! Update the README too.", t), t));
  t = at();
  e.push(msg(assistant([text("README updated with a Flags section.")], t, usage(900, 60, 700)), t));
  write("--home-dev-projects-cli-tool--", header, e);
}

// ---------------------------------------------------------------------------------------
// v2: a tree (ids), a branch, and a legacy hookMessage role.
{
  const h = at();
  const header = {
    type: "session",
    version: 2,
    id: "6a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
    timestamp: h.iso,
    cwd: "/home/dev/projects/webapp",
  };
  const e = [];
  const add = (id, parentId, fields) => {
    const t = at();
    const entry = { type: fields.type ?? "message", id, parentId, timestamp: t.iso, ...fields };
    if (fields.message) entry.message = fields.message(t);
    e.push(entry);
  };
  add("a1000001", null, { message: (t) => user("Why does the login page flash on load?", t) });
  add("a1000002", "a1000001", {
    message: (t) =>
      assistant(
        [text("The session check runs after first paint. Moving it into the loader fixes it.")],
        t,
        usage(2100, 210),
      ),
  });
  add("a1000003", "a1000002", {
    message: (t) => ({
      role: "hookMessage",
      customType: "lint-report",
      content: "eslint: 0 errors, 2 warnings",
      display: true,
      timestamp: t.ms,
    }),
  });
  // Branch 1 (abandoned): try a CSS fix.
  add("a1000004", "a1000003", { message: (t) => user("Could we hide it with CSS instead?", t) });
  add("a1000005", "a1000004", {
    message: (t) =>
      assistant(
        [text("A CSS-only fix would hide the symptom but not the extra request.")],
        t,
        usage(2400, 120),
      ),
  });
  // Branch 2 (active): continue from the hook message.
  add("a1000006", "a1000003", { message: (t) => user("Do the loader change.", t) });
  add("a1000007", "a1000006", {
    message: (t) =>
      assistant(
        [
          { type: "thinking", thinking: "The loader already has the cookie; reuse it." },
          text("Done: the session is read in the route loader; no flash."),
        ],
        t,
        usage(2600, 300, 1800),
      ),
  });
  write("--home-dev-projects-webapp--", header, e);
}

// ---------------------------------------------------------------------------------------
// v3: the full modern mix.
let mainV3Path;
{
  const h = at();
  const header = {
    type: "session",
    version: 3,
    id: "019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f",
    timestamp: h.iso,
    cwd: "/home/dev/projects/webapp",
  };
  const e = [];
  const add = (id, parentId, fields) => {
    const t = at();
    const { message, ...rest } = fields;
    const entry = { type: "message", id, parentId, timestamp: t.iso, ...rest };
    if (message) entry.message = message(t);
    e.push(entry);
    return t;
  };
  add("b2000001", null, { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  add("b2000002", "b2000001", { type: "thinking_level_change", thinkingLevel: "high" });
  add("b2000003", "b2000002", { message: (t) => user("Add rate limiting to the /api/upload endpoint.", t) });
  add("b2000004", "b2000003", {
    message: (t) =>
      assistant(
        [
          {
            type: "thinking",
            thinking: "Check which middleware stack the route uses.",
            thinkingSignature: "sig-1",
          },
          {
            type: "toolCall",
            id: "toolu_b_01",
            name: "bash",
            arguments: { command: "rg -n 'upload' src/routes" },
          },
        ],
        t,
        usage(3200, 140, 0, 2800),
        "claude-sonnet-4-5",
        "toolUse",
      ),
  });
  add("b2000005", "b2000004", {
    message: (t) =>
      toolResult("toolu_b_01", "bash", "src/routes/upload.ts:12: router.post('/api/upload', ...)", t),
  });
  add("b2000006", "b2000005", {
    message: (t) =>
      assistant(
        [text("I'll add a token bucket (10 req/min per user) in front of the handler.")],
        t,
        usage(3600, 220, 2800),
      ),
  });
  add("b2000007", "b2000006", { type: "label", targetId: "b2000006", label: "plan" });
  // Branch A (abandoned): a Redis-based limiter.
  add("b2000008", "b2000007", { message: (t) => user("Use Redis for the counters.", t) });
  add("b2000009", "b2000008", {
    message: (t) =>
      assistant(
        [text("Redis is not available in the test environment; this needs a mock.")],
        t,
        usage(3900, 180, 3200),
      ),
  });
  // Branch B (active): summary of A, then an in-memory limiter.
  add("b2000010", "b2000007", {
    type: "branch_summary",
    fromId: "b2000009",
    summary: "Tried a Redis-backed limiter; dropped because tests have no Redis.",
  });
  add("b2000011", "b2000010", { message: (t) => user("Keep it in memory for now.", t) });
  add("b2000012", "b2000011", {
    message: (t) => ({
      role: "bashExecution",
      command: "npm test -- upload",
      output: "PASS src/routes/upload.test.ts (4 tests)",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: t.ms,
    }),
  });
  add("b2000013", "b2000012", {
    message: (t) => assistant([text("In-memory limiter added; 4 tests pass.")], t, usage(4200, 160, 3900)),
  });
  add("b2000014", "b2000013", {
    type: "compaction",
    summary: "Rate limiting for /api/upload: an in-memory token bucket (10/min/user) was added; tests pass.",
    firstKeptEntryId: "b2000011",
    tokensBefore: 18250,
    details: { readFiles: ["src/routes/upload.ts"], modifiedFiles: ["src/routes/upload.ts", "src/limit.ts"] },
    usage: usage(9000, 400, 0, 0),
  });
  add("b2000015", "b2000014", { type: "session_info", name: "upload rate limiting" });
  add("b2000016", "b2000015", { type: "custom", customType: "todo-state", data: { open: 1, done: 3 } });
  add("b2000017", "b2000016", {
    type: "custom_message",
    customType: "ci-status",
    content: "CI is green on main.",
    display: false,
  });
  add("b2000018", "b2000017", { message: (t) => user("Make the limit configurable.", t) });
  add("b2000019", "b2000018", {
    message: (t) =>
      assistant([text("Added RATE_LIMIT_PER_MIN (default 10) to the config.")], t, usage(5100, 190, 4000)),
  });
  add("b2000020", "b2000019", {
    type: "usage",
    kind: "title-generation",
    provider: "openai",
    model: "gpt-4.1-mini",
    usage: usage(300, 12, 0, 0, [0.4, 1.6, 0.1, 0]),
  });
  add("b2000021", "b2000020", {
    type: "context_edit",
    targetId: "b2000018",
    replacement: { content: "Make the rate limit configurable through the environment." },
  });
  add("b2000022", "b2000021", { type: "label", targetId: "b2000019", label: "configurable" });
  mainV3Path = write("--home-dev-projects-webapp--", header, e);
}

// ---------------------------------------------------------------------------------------
// v3 fork of the session above (as pi's forkFrom writes it: same entries, same ids, new header).
{
  const h = at();
  const src = mainV3Path.split("/").slice(-2).join("/");
  const header = {
    type: "session",
    version: 3,
    id: "019a4c2f-1a2b-7c3d-8e4f-6a7b8c9d0e1f",
    timestamp: h.iso,
    cwd: "/home/dev/projects/webapp",
    parentSession: `/home/dev/.pi/agent/sessions/${src}`,
  };
  const parentLines = (await import("node:fs")).readFileSync(mainV3Path, "utf8").trim().split("\n").slice(1);
  const e = parentLines.slice(0, 13).map((l) => JSON.parse(l));
  const t1 = at();
  e.push({
    type: "message",
    id: "c3000001",
    parentId: "b2000013",
    timestamp: t1.iso,
    message: user("Also log every rejected request.", t1),
  });
  const t2 = at();
  e.push({
    type: "message",
    id: "c3000002",
    parentId: "c3000001",
    timestamp: t2.iso,
    message: assistant([text("Rejected requests are now logged at warn level.")], t2, usage(4400, 120, 3900)),
  });
  write("--home-dev-projects-webapp--", header, e);
}

console.log(`examples written to ${root}`);
