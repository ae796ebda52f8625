/**
 * `follow <session>`: a live view of a session being written. Prints its current branch (or
 * the last N items of it, or nothing with `--no-history`), then each entry as it lands,
 * rendered as `show` renders it; a new entry whose parent is not the previous leaf is a branch
 * switch, and a compaction says how many tokens it summarized. The file is followed by
 * node-store's `followSessionFile` (file-system events with a polling fallback); a file
 * rewritten or replaced is read again and only the entries not shown yet are printed. Runs
 * until Ctrl-C (exit 0); a closed stdout pipe ends it too (`main.ts`). `--json`: one JSON line
 * per entry.
 */
import { basename } from "node:path";
import type { AnyEntry, SessionHeader, SessionRecord } from "@pi-session/format";
import { detectVersion, splitSession } from "@pi-session/format";
import { type FollowEvent, followSessionFile, keepLinesPiReads } from "@pi-session/node-store";
import {
  buildDocument,
  collectToolCalls,
  createRenderSession,
  entryItem,
  escapeTerminalUnsafe,
  jsonText,
  renderTextChunks,
  renderTextItem,
} from "@pi-session/render";
import { SessionIndex } from "@pi-session/tree";
import { cutText } from "../columns.js";
import { UsageError } from "../errors.js";
import { assertFile } from "../load.js";
import { migrateForReading } from "../migration.js";
import type { Action, Context } from "../program.js";
import { intOption, sessionPath } from "./common.js";

export const action: Action = async (ctx, [arg], options) => {
  const path = await sessionPath(ctx, arg);
  assertFile(path);
  const last = intOption(options, "last", "--last");
  const history = options.history !== false;
  if (!history && last !== undefined) throw new UsageError("--no-history and --last cannot be used together");
  const pollMs = intOption(options, "pollMs", "--poll-ms");
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    const view = new FollowView(ctx, { path, history, last, full: options.full === true });
    let announced = false;
    for await (const event of followSessionFile(path, {
      signal: controller.signal,
      ...(pollMs !== undefined ? { pollMs } : {}),
      ...(ctx.env.PI_SESSION_FOLLOW_POLL_ONLY === "1" ? { pollOnly: true } : {}),
    })) {
      view.take(event);
      // Said once the file's starting state is read: whatever lands after this line is new.
      if (!announced) {
        announced = true;
        // On a terminal the file name gives way (keeping its end, the session id) so the line fits.
        const room = ctx.io.columns === undefined ? undefined : Math.max(12, ctx.io.columns - 27);
        const name = room === undefined ? basename(path) : cutText(basename(path), room, "end");
        ctx.io.info(ctx.io.err.dim(`following ${name}; Ctrl-C to stop`));
      }
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return 0;
};

interface ViewOptions {
  path: string;
  history: boolean;
  last: number | undefined;
  full: boolean;
}

/** What `follow` has shown: the entries seen (by id), the leaf, the file's records. */
class FollowView {
  private header: SessionHeader | undefined;
  private version = 3;
  private records: SessionRecord[] = [];
  private readonly seen = new Set<string>();
  private leafId: string | null = null;
  private readonly toolCalls = collectToolCalls([]);
  private started = false;
  private readonly keep = keepLinesPiReads();

  constructor(
    private readonly ctx: Context,
    private readonly options: ViewOptions,
  ) {}

  take(event: FollowEvent): void {
    const { io } = this.ctx;
    if (event.type === "removed") {
      io.warn(`${this.options.path} was removed; waiting for it to come back (Ctrl-C to stop)`);
      return;
    }
    if (event.type === "reset") {
      io.info(io.err.dim(`the file was ${event.reason}; reading it again`));
      return;
    }
    const fresh = event.records.filter(this.keep);
    if (event.fromStart) this.records = fresh;
    else this.records.push(...fresh);
    const entries = this.entriesOf(event.fromStart ? this.records : fresh, event.fromStart);
    if (!this.started) {
      this.started = true;
      this.showHistory(entries);
      return;
    }
    for (const entry of entries) if (!this.seen.has(entry.id)) this.showNew(entry);
  }

  /** The entries of `records`: v3 lines as they are; an older file migrated whole, in memory. */
  private entriesOf(records: SessionRecord[], fromStart: boolean): AnyEntry[] {
    if (fromStart || this.version < 3) {
      const migrated = migrateForReading(this.records);
      if (fromStart) {
        this.header = migrated.header;
        this.version = detectVersion(splitSession(this.records).header?.value);
      }
      return migrated.entries.map((e) => e.entry);
    }
    return splitSession(records).entries.map((r) => r.value as AnyEntry);
  }

  private showHistory(entries: AnyEntry[]): void {
    const { ctx, options } = this;
    const index = new SessionIndex<AnyEntry>(entries);
    for (const entry of entries) this.remember(entry);
    this.leafId = index.leafId;
    if (!options.history) return;
    const branch = index.activePath(index.leafId);
    if (ctx.json) {
      for (const entry of options.last !== undefined ? branch.slice(-options.last) : branch)
        this.printJson(entry);
      return;
    }
    if (!this.header) {
      ctx.io.warn(`${options.path}: no session header yet; showing entries as they land`);
      return;
    }
    const doc = buildDocument(
      createRenderSession({ header: this.header, entries, index, formatVersion: this.version }),
      {
        view: "branch",
        leafId: index.leafId,
      },
    );
    // Labels show only on the item they label: the last N are of the items shown.
    const shown =
      options.last !== undefined
        ? { ...doc, items: doc.items.filter((item) => item.kind !== "label").slice(-options.last) }
        : doc;
    for (const chunk of renderTextChunks(shown, this.textOptions(true))) ctx.io.line(chunk.slice(0, -1));
  }

  private showNew(entry: AnyEntry): void {
    const { ctx } = this;
    const parentId = (entry as { parentId?: unknown }).parentId;
    const switched = typeof parentId === "string" || parentId === null ? parentId !== this.leafId : false;
    this.remember(entry);
    // Every entry becomes the leaf (pi's rule, and the tree index's).
    if (typeof entry.id === "string") this.leafId = entry.id;
    if (ctx.json) {
      this.printJson(entry);
      return;
    }
    const { io } = ctx;
    if (switched)
      io.line(
        `\n${io.out.magenta(`branch: now following ${entry.id}, forked from ${parentId === null ? "(root)" : String(parentId)}`)}`,
      );
    if (entry.type === "compaction") {
      const tokens = (entry as { tokensBefore?: unknown }).tokensBefore;
      io.line(
        `\n${io.out.yellow(`compaction: ${typeof tokens === "number" ? `${tokens.toLocaleString("en-US")} tokens` : "the context"} summarized`)}`,
      );
    }
    const text = renderTextItem(entryItem(entry, { toolCalls: this.toolCalls }), this.textOptions(false));
    if (text !== undefined) io.line(`\n${text}`);
  }

  private remember(entry: AnyEntry): void {
    if (typeof entry.id === "string") this.seen.add(entry.id);
    collectToolCalls([entry], this.toolCalls);
  }

  private printJson(entry: AnyEntry): void {
    this.ctx.io.document(`${escapeTerminalUnsafe(jsonText(entry))}\n`);
  }

  private textOptions(withSource: boolean) {
    const { io } = this.ctx;
    return {
      full: this.options.full,
      style: io.out,
      foldHint: "; --full shows all",
      ...(withSource ? { source: this.options.path } : {}),
      ...(io.columns !== undefined ? { width: io.columns } : {}),
    };
  }
}
