/**
 * Model-based test: random sequences of manager calls run against the real SessionManager and
 * against a deliberately naive model (a list of entries and a leaf). After every step the
 * observable results must agree: entries (shape and parent links), leaf, branch, labels, name,
 * context (roles, texts, thinking level, model), entry count and tree size. The persisted
 * variant also reopens the file between steps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentMessage, SessionManager } from "./index.js";

interface ModelEntry {
  id: string;
  parentId: string | null;
  type: string;
  role?: "user" | "assistant";
  text?: string;
  target?: string;
  label?: string;
  keep?: string;
  value?: string;
}
interface Model {
  entries: ModelEntry[];
  leaf: string | null;
}
interface Real {
  sm: SessionManager;
  persisted: boolean;
}

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const message = (role: "user" | "assistant", text: string): AgentMessage =>
  role === "user"
    ? { role, content: text, timestamp: 1 }
    : ({
        role,
        content: [{ type: "text", text }],
        provider: "anthropic",
        model: "claude-test",
        stopReason: "stop",
        usage,
        timestamp: 2,
      } as AgentMessage);

function byId(model: Model): Map<string, ModelEntry> {
  return new Map(model.entries.map((e) => [e.id, e]));
}

function modelPath(model: Model, from: string | null = model.leaf): ModelEntry[] {
  const index = byId(model);
  const path: ModelEntry[] = [];
  let current = from === null ? undefined : index.get(from);
  while (current) {
    path.unshift(current);
    current = current.parentId === null ? undefined : index.get(current.parentId);
  }
  return path;
}

function contribution(entry: ModelEntry): [string, string][] {
  if (entry.type === "message") return [[entry.role as string, entry.text as string]];
  if (entry.type === "compaction") return [["compactionSummary", entry.text as string]];
  if (entry.type === "branch_summary" && entry.text) return [["branchSummary", entry.text]];
  return [];
}

function modelContext(model: Model) {
  const path = modelPath(model);
  let thinkingLevel = "off";
  let llm: { provider: string; modelId: string } | null = null;
  for (const e of path) {
    if (e.type === "thinking_level_change") thinkingLevel = e.value as string;
    if (e.type === "model_change") llm = { provider: "p", modelId: e.value as string };
    if (e.type === "message" && e.role === "assistant")
      llm = { provider: "anthropic", modelId: "claude-test" };
  }
  let c = -1;
  path.forEach((e, i) => {
    if (e.type === "compaction") c = i;
  });
  let messages: [string, string][];
  if (c < 0) messages = path.flatMap(contribution);
  else {
    const compaction = path[c] as ModelEntry;
    const start = path.findIndex((e, i) => i < c && e.id === compaction.keep);
    const kept = start < 0 ? [] : path.slice(start, c);
    messages = [
      ...contribution(compaction),
      ...kept.flatMap((e) => (e.type === "compaction" ? [] : contribution(e))),
      ...path.slice(c + 1).flatMap(contribution),
    ];
  }
  return { messages, thinkingLevel, model: llm };
}

function modelLabel(model: Model, id: string): string | undefined {
  let label: string | undefined;
  for (const e of model.entries) if (e.type === "label" && e.target === id) label = e.label || undefined;
  return label;
}

function modelName(model: Model): string | undefined {
  for (let i = model.entries.length - 1; i >= 0; i--) {
    const e = model.entries[i] as ModelEntry;
    if (e.type === "session_info") return e.value?.trim() || undefined;
  }
  return undefined;
}

function realContext(sm: SessionManager) {
  const ctx = sm.buildSessionContext();
  const messages = ctx.messages.map((m): [string, string] => {
    const content = (m as { content?: unknown }).content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? (content as { text: string }[]).map((b) => b.text).join("")
          : ((m as { summary?: string }).summary as string);
    return [m.role, text];
  });
  return { messages, thinkingLevel: ctx.thinkingLevel, model: ctx.model };
}

function check(model: Model, real: Real): void {
  const sm = real.sm;
  const entries = sm.getEntries();
  expect(entries.map((e) => [e.id, e.parentId, e.type])).toEqual(
    model.entries.map((e) => [e.id, e.parentId, e.type]),
  );
  expect(sm.getLeafId()).toBe(model.leaf);
  expect(sm.getBranch().map((e) => e.id)).toEqual(modelPath(model).map((e) => e.id));
  for (const e of model.entries) expect(sm.getLabel(e.id)).toBe(modelLabel(model, e.id));
  expect(sm.getSessionName()).toBe(modelName(model));
  expect(realContext(sm)).toEqual(modelContext(model));
  expect(sm.getEntryCount()).toBe(model.entries.length);
  const count = (nodes: ReturnType<SessionManager["getTree"]>): number =>
    nodes.reduce((n, node) => n + 1 + count(node.children), 0);
  expect(count(sm.getTree())).toBe(model.entries.length);
}

type Cmd = fc.Command<Model, Real>;
const pick = (model: Model, n: number) => model.entries[n % model.entries.length] as ModelEntry;

function append(model: Model, real: Real, entry: Omit<ModelEntry, "parentId">, parentId = model.leaf): void {
  model.entries.push({ ...entry, parentId });
  model.leaf = entry.id;
  check(model, real);
}

class AppendMessage implements Cmd {
  constructor(
    readonly role: "user" | "assistant",
    readonly text: string,
  ) {}
  check = () => true;
  run(model: Model, real: Real) {
    const id = real.sm.appendMessage(message(this.role, this.text));
    append(model, real, { id, type: "message", role: this.role, text: this.text });
  }
  toString = () => `appendMessage(${this.role}, ${JSON.stringify(this.text)})`;
}

class AppendSetting implements Cmd {
  constructor(
    readonly kind: "thinking" | "model" | "custom" | "name",
    readonly value: string,
  ) {}
  check = () => true;
  run(model: Model, real: Real) {
    const sm = real.sm;
    const [id, type] =
      this.kind === "thinking"
        ? [sm.appendThinkingLevelChange(this.value), "thinking_level_change"]
        : this.kind === "model"
          ? [sm.appendModelChange("p", this.value), "model_change"]
          : this.kind === "custom"
            ? [sm.appendCustomEntry("ext", { v: this.value }), "custom"]
            : [sm.appendSessionInfo(this.value), "session_info"];
    append(model, real, {
      id,
      type,
      value: this.kind === "name" ? this.value.replace(/[\r\n]+/g, " ").trim() : this.value,
    });
  }
  toString = () => `append ${this.kind}(${JSON.stringify(this.value)})`;
}

class Label implements Cmd {
  constructor(
    readonly n: number,
    readonly label: string | undefined,
  ) {}
  check = (model: Readonly<Model>) => model.entries.length > 0;
  run(model: Model, real: Real) {
    const target = pick(model, this.n).id;
    const id = real.sm.appendLabelChange(target, this.label);
    append(model, real, { id, type: "label", target, label: this.label });
  }
  toString = () => `label(#${this.n}, ${JSON.stringify(this.label)})`;
}

class Branch implements Cmd {
  constructor(readonly n: number | null) {}
  check = (model: Readonly<Model>) => this.n === null || model.entries.length > 0;
  run(model: Model, real: Real) {
    if (this.n === null) {
      real.sm.resetLeaf();
      model.leaf = null;
    } else {
      model.leaf = pick(model, this.n).id;
      real.sm.branch(model.leaf);
    }
    check(model, real);
  }
  toString = () => (this.n === null ? "resetLeaf()" : `branch(#${this.n})`);
}

class BranchWithSummary implements Cmd {
  constructor(
    readonly n: number | null,
    readonly summary: string,
  ) {}
  check = () => true;
  run(model: Model, real: Real) {
    const target = this.n === null || model.entries.length === 0 ? null : pick(model, this.n).id;
    const fromId = model.leaf ?? "root";
    const id = real.sm.branchWithSummary(target, this.summary);
    expect((real.sm.getEntry(id) as { fromId: string }).fromId).toBe(fromId);
    append(model, real, { id, type: "branch_summary", text: this.summary }, target);
  }
  toString = () => `branchWithSummary(#${this.n}, ${JSON.stringify(this.summary)})`;
}

class Compact implements Cmd {
  constructor(
    readonly n: number | null,
    readonly summary: string,
  ) {}
  check = () => true;
  run(model: Model, real: Real) {
    const keep = this.n === null || model.entries.length === 0 ? null : pick(model, this.n).id;
    const id = real.sm.appendCompaction(this.summary, keep, 100);
    append(model, real, { id, type: "compaction", text: this.summary, keep: keep ?? id });
  }
  toString = () => `appendCompaction(${JSON.stringify(this.summary)}, #${this.n})`;
}

/** Persisted only: reopen the file; the leaf becomes the last line, as in pi. */
class Reopen implements Cmd {
  check = (model: Readonly<Model>) => model.entries.some((e) => e.type === "message");
  run(model: Model, real: Real) {
    if (!real.persisted) return;
    real.sm = SessionManager.open(real.sm.getSessionFile() as string);
    model.leaf = model.entries[model.entries.length - 1]?.id ?? null;
    check(model, real);
  }
  toString = () => "reopen()";
}

const text = fc.string({ maxLength: 6 });
const commands = [
  fc
    .tuple(fc.constantFrom("user" as const, "assistant" as const), text)
    .map(([r, t]) => new AppendMessage(r, t)),
  fc
    .tuple(fc.constantFrom("thinking" as const, "model" as const, "custom" as const, "name" as const), text)
    .map(([k, v]) => new AppendSetting(k, v)),
  fc.tuple(fc.nat(), fc.option(text, { nil: undefined })).map(([n, l]) => new Label(n, l)),
  fc.option(fc.nat(), { nil: null }).map((n) => new Branch(n)),
  fc.tuple(fc.option(fc.nat(), { nil: null }), text).map(([n, s]) => new BranchWithSummary(n, s)),
  fc
    .tuple(
      fc.option(fc.nat(), { nil: null }),
      text.map((s) => `S${s}`),
    )
    .map(([n, s]) => new Compact(n, s)),
  fc.constant(new Reopen()),
];

describe("model-based: random manager calls agree with a naive model", () => {
  it("in memory", () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 30 }), (cmds) => {
        fc.modelRun(
          () => ({
            model: { entries: [], leaf: null },
            real: { sm: SessionManager.inMemory("/p"), persisted: false },
          }),
          cmds,
        );
      }),
      fcOptions(),
    );
  });

  it("persisted, reopening the file between steps", () => {
    const root = mkdtempSync(join(tmpdir(), "pi-sdk-model-"));
    try {
      let run = 0;
      fc.assert(
        fc.property(fc.commands(commands, { maxCommands: 20 }), (cmds) => {
          const dir = join(root, String(run++));
          fc.modelRun(
            () => ({
              model: { entries: [], leaf: null },
              real: { sm: SessionManager.create(dir, dir), persisted: true },
            }),
            cmds,
          );
        }),
        fcOptions(),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
