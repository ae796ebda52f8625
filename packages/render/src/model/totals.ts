/**
 * A session's totals, for a page's header: the models that answered, messages by role, tool
 * calls, tokens (input, output, cache reads and writes) and cost, summed over the entries
 * given (assistant messages' usage and `usage` entries). Use {@link sessionTotals} where a
 * reader wants the size of a session at a glance.
 */
import { type AnyEntry, isObject } from "@pi-session/format";

export interface SessionTotals {
  /** `provider/model` of every model that answered, in order of first answer. */
  models: string[];
  /** Message entries by role (`user`, `assistant`, `toolResult`, ...). */
  messages: Record<string, number>;
  toolCalls: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Dollars, as the usage records say. */
  cost: number;
}

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

function addUsage(totals: SessionTotals, usage: unknown): void {
  if (!isObject(usage)) return;
  totals.tokens.input += count(usage.input);
  totals.tokens.output += count(usage.output);
  totals.tokens.cacheRead += count(usage.cacheRead);
  totals.tokens.cacheWrite += count(usage.cacheWrite);
  if (isObject(usage.cost)) totals.cost += count(usage.cost.total);
}

export function sessionTotals(entries: Iterable<AnyEntry>): SessionTotals {
  const totals: SessionTotals = {
    models: [],
    messages: {},
    toolCalls: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    cost: 0,
  };
  const models = new Set<string>();
  const model = (provider: unknown, id: unknown) => {
    const name = [provider, id].filter((part) => typeof part === "string" && part !== "").join("/");
    if (name !== "" && !models.has(name)) {
      models.add(name);
      totals.models.push(name);
    }
  };
  for (const entry of entries) {
    const e = entry as Record<string, unknown>;
    if (e.type === "usage") {
      addUsage(totals, e.usage);
      continue;
    }
    if (e.type !== "message" || !isObject(e.message)) continue;
    const message = e.message;
    const role = typeof message.role === "string" ? message.role : "unknown";
    totals.messages[role] = (totals.messages[role] ?? 0) + 1;
    if (role !== "assistant") continue;
    model(message.provider, message.model);
    addUsage(totals, message.usage);
    if (Array.isArray(message.content))
      for (const block of message.content)
        if (isObject(block) && block.type === "toolCall") totals.toolCalls++;
  }
  return totals;
}
