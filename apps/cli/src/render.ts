/**
 * How entries look on a terminal: a one-line summary (for `tree`) and a transcript block
 * (for `show`). Presentation only: fields are read for display, never interpreted beyond that.
 * Fields shown on a title line go through `oneLineField` (a `\n` in a label is shown, not
 * obeyed); the writer (`Io`) makes every other control character visible.
 */
import type { Colors } from "./io.js";
import { jsonText } from "./json.js";
import { oneLineField } from "./terminal-safe.js";
import { contentText, fold, indent, oneLine, shortDate } from "./text.js";

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Folding limits for `show` without `--full`. */
export const FOLD_LINES = { toolResult: 6, bash: 6, thinking: 4, summary: 12, system: 4 } as const;

/**
 * A short label of an entry for `tree`: kind, and a preview of its text (exact, for `--json`;
 * a terminal line shows it through `oneLineField`).
 */
export function entrySummary(entry: Obj, width = 70): { kind: string; preview: string } {
  const type = str(entry.type);
  switch (type) {
    case "message": {
      const message = isObject(entry.message) ? entry.message : {};
      const role = str(message.role) || "?";
      if (role === "assistant") {
        const content = Array.isArray(message.content) ? message.content : [];
        const text = contentText(content, " ");
        const calls = content
          .filter((b): b is Obj => isObject(b) && b.type === "toolCall")
          .map((b) => str(b.name))
          .join(", ");
        const preview = text ? oneLine(text, width) : "";
        return { kind: "assistant", preview: calls ? `${preview}${preview ? " " : ""}→ ${calls}` : preview };
      }
      if (role === "toolResult")
        return {
          kind: "toolResult",
          preview: `${str(message.toolName)}${message.isError === true ? " (error)" : ""}`,
        };
      if (role === "bashExecution")
        return { kind: "bash", preview: oneLine(`$ ${str(message.command)}`, width) };
      if (role === "custom" || role === "hookMessage") {
        return {
          kind: role,
          preview: oneLine(`[${str(message.customType)}] ${contentText(message.content, " ")}`, width),
        };
      }
      if (role === "branchSummary" || role === "compactionSummary")
        return { kind: role, preview: oneLine(str(message.summary), width) };
      return { kind: role, preview: oneLine(contentText(message.content, " "), width) };
    }
    case "compaction":
      return { kind: "compaction", preview: oneLine(str(entry.summary), width) };
    case "branch_summary":
      return { kind: "branch summary", preview: oneLine(str(entry.summary), width) };
    case "model_change":
      return { kind: "model", preview: `${str(entry.provider)}/${str(entry.modelId)}` };
    case "thinking_level_change":
      return { kind: "thinking", preview: str(entry.thinkingLevel) };
    case "label":
      return {
        kind: "label",
        preview: `${str(entry.targetId)} = ${entry.label === undefined ? "(cleared)" : oneLine(jsonText(entry.label), width)}`,
      };
    case "session_info":
      return {
        kind: "name",
        preview: typeof entry.name === "string" ? JSON.stringify(entry.name) : "(cleared)",
      };
    case "custom":
      return { kind: "custom", preview: str(entry.customType) };
    case "custom_message":
      return {
        kind: "custom message",
        preview: oneLine(`[${str(entry.customType)}] ${contentText(entry.content, " ")}`, width),
      };
    case "usage":
      return { kind: "usage", preview: `${str(entry.kind)} ${str(entry.provider)}/${str(entry.model)}` };
    case "context_edit":
      return {
        kind: "context edit",
        preview: `${str(entry.targetId)}${entry.replacement === null ? " (removed)" : ""}`,
      };
    default:
      return { kind: type || "?", preview: "" };
  }
}

export interface TranscriptOptions {
  full: boolean;
  label: string | undefined;
  /** Show the entry id (for --all-branches, where parents matter). */
  showIds: boolean;
  /** Note shown when the entry does not continue from the one printed before it. */
  branchNote?: string;
}

function foldIf(text: string, lines: number, full: boolean): string {
  return full ? text : fold(text, lines);
}

function head(c: Colors, title: string, entry: Obj, opts: TranscriptOptions): string {
  const bits = [title];
  if (opts.label) bits.push(c.yellow(`[${oneLineField(opts.label)}]`));
  if (opts.showIds && typeof entry.id === "string") bits.push(c.dim(oneLineField(entry.id)));
  const message = isObject(entry.message) ? entry.message : undefined;
  const time =
    str(entry.timestamp) || (typeof message?.timestamp === "number" ? message.timestamp : undefined);
  bits.push(c.dim(oneLineField(shortDate(time))));
  return bits.join(" ");
}

/** A field of a title line: shown on one line. */
function field(value: unknown): string {
  return oneLineField(str(value));
}

function toolCallLine(c: Colors, block: Obj, full: boolean): string {
  // Arguments nested any depth deep print (jsonText does not recurse).
  const args = jsonText(block.arguments ?? {});
  return c.cyan(`→ ${field(block.name)}(${full ? args : oneLine(args, 100)})`);
}

/** The transcript block of one entry (several lines), or undefined for entries not shown. */
export function transcriptBlock(c: Colors, entry: Obj, opts: TranscriptOptions): string | undefined {
  const type = str(entry.type);
  const lines: string[] = [];
  if (opts.branchNote) lines.push(c.magenta(opts.branchNote));
  const push = (title: string, body?: string) => {
    lines.push(head(c, title, entry, opts));
    if (body !== undefined && body !== "") lines.push(indent(body, "  "));
  };
  switch (type) {
    case "message": {
      const m = isObject(entry.message) ? entry.message : {};
      const role = str(m.role);
      if (role === "user") push(c.bold(c.green("user")), contentText(m.content));
      else if (role === "assistant") {
        const model = [field(m.provider), field(m.model)].filter(Boolean).join("/");
        const parts: string[] = [];
        for (const block of Array.isArray(m.content) ? m.content : []) {
          if (!isObject(block)) continue;
          if (block.type === "text") parts.push(str(block.text));
          else if (block.type === "thinking") {
            const thinking = block.redacted === true ? "(redacted thinking)" : str(block.thinking);
            parts.push(c.dim(c.italic(foldIf(thinking, FOLD_LINES.thinking, opts.full))));
          } else if (block.type === "toolCall") parts.push(toolCallLine(c, block, opts.full));
          else parts.push(c.dim(`(${field(block.type)} block)`));
        }
        if (typeof m.errorMessage === "string" && m.errorMessage)
          parts.push(c.red(`error: ${m.errorMessage}`));
        const stop = field(m.stopReason);
        const tail = stop && stop !== "stop" && stop !== "toolUse" ? c.dim(` (${stop})`) : "";
        push(`${c.bold(c.blue("assistant"))}${model ? c.dim(` ${model}`) : ""}${tail}`, parts.join("\n"));
      } else if (role === "toolResult") {
        const title = `${c.cyan(`← ${field(m.toolName)}`)}${m.isError === true ? c.red(" error") : ""}`;
        push(title, c.dim(foldIf(contentText(m.content), FOLD_LINES.toolResult, opts.full)));
      } else if (role === "bashExecution") {
        const code = m.exitCode === undefined || m.exitCode === null ? "" : ` (exit ${String(m.exitCode)})`;
        push(c.cyan(`$ ${str(m.command)}${code}`), c.dim(foldIf(str(m.output), FOLD_LINES.bash, opts.full)));
      } else if (role === "custom" || role === "hookMessage") {
        push(c.magenta(`[${field(m.customType)}]`), contentText(m.content));
      } else if (role === "branchSummary")
        push(c.magenta("branch summary"), foldIf(str(m.summary), FOLD_LINES.summary, opts.full));
      else if (role === "compactionSummary")
        push(c.magenta("compaction summary"), foldIf(str(m.summary), FOLD_LINES.summary, opts.full));
      else if (role === "system")
        push(c.dim("system"), c.dim(foldIf(contentText(m.content), FOLD_LINES.system, opts.full)));
      else push(c.dim(oneLineField(role) || "message"), contentText(m.content));
      break;
    }
    case "compaction": {
      const tokens = typeof entry.tokensBefore === "number" ? ` (${entry.tokensBefore} tokens before)` : "";
      push(c.magenta(`── compaction${tokens} ──`), foldIf(str(entry.summary), FOLD_LINES.summary, opts.full));
      break;
    }
    case "branch_summary":
      push(c.magenta("── branch summary ──"), foldIf(str(entry.summary), FOLD_LINES.summary, opts.full));
      break;
    case "custom_message": {
      const hidden = entry.display === false ? c.dim(" (not displayed, sent to the model)") : "";
      push(`${c.magenta(`[${field(entry.customType)}]`)}${hidden}`, contentText(entry.content));
      break;
    }
    case "label":
      // Labels are shown on their targets.
      return undefined;
    default: {
      const { kind, preview } = entrySummary(entry);
      const id = opts.showIds && typeof entry.id === "string" ? ` ${entry.id}` : "";
      lines.push(c.dim(oneLineField(`· ${kind}${preview ? ` ${preview}` : ""}${id}`)));
    }
  }
  return lines.join("\n");
}
