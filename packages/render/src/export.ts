/**
 * A session as one export file: Markdown, one HTML page, the document model as JSON, or a
 * branch as JSONL, made by the renderers with one set of options. Use it where a session is
 * exported (the CLI's `export`, the web app's downloads), so the same session and options give
 * the same bytes everywhere.
 */
import type { AnyEntry } from "@pi-session/format";
import {
  DOCUMENT_FORMAT,
  DOCUMENT_VERSION,
  type DocumentItem,
  type ImageBlock,
  type RenderDocument,
  type ViewKind,
} from "./model/shapes.js";
import {
  type DocumentSessionParts,
  type TreePlace,
  buildDocument,
  documentSessionOf,
  placedItem,
} from "./model/document.js";
import type { ToolCallLookup } from "./model/tool-calls.js";
import { renderHtmlChunks } from "./html.js";
import { escapeTerminalUnsafe, writeJson } from "./json.js";
import { branchJsonlLines, jsonlLines } from "./jsonl.js";
import { type MarkdownOptions, markdownChunks } from "./markdown.js";
import type { RedactionReport } from "./redact.js";
import type { SafeImage } from "./images.js";
import type { RenderSession } from "./source.js";

/** The export formats, by file extension. */
export const EXPORT_FORMATS = ["md", "html", "json", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  format: ExportFormat;
  /** The view (`context` has no JSONL form: it is messages, not entries). */
  view: ViewKind;
  /** The branch (default: the session's leaf); an HTML page then holds that branch only. */
  leafId?: string | undefined;
  /** Markdown: keep long outputs whole. */
  full?: boolean;
  /** Markdown: appended to every cut note (how to keep what was cut). */
  cutHint?: string;
  /** Markdown: where an image goes (see `MarkdownOptions.images`). */
  images?: (image: ImageBlock & SafeImage, number: number) => string | undefined;
  /** HTML: shown in the page when the session was redacted. */
  redaction?: RedactionReport;
  /** HTML: who made the page, e.g. `pi-session 0.1.0`. */
  generator?: string;
}

function markdownOptions(options: Pick<ExportOptions, "full" | "cutHint" | "images">): MarkdownOptions {
  return {
    ...(options.full !== undefined ? { full: options.full } : {}),
    ...(options.cutHint !== undefined ? { cutHint: options.cutHint } : {}),
    ...(options.images ? { images: options.images } : {}),
  };
}

/** The export file's text, in pieces (an HTML page is written as it is made). */
export function exportChunks(session: RenderSession, options: ExportOptions): Iterable<string> {
  const { view, leafId } = options;
  switch (options.format) {
    case "md": {
      const doc = buildDocument(session, { view, leafId });
      return markdownChunks({ ...doc, itemCount: doc.items.length }, doc.items, markdownOptions(options));
    }
    case "html":
      return renderHtmlChunks(session, {
        view,
        // A page of a chosen branch holds that branch only; the whole tree is the default.
        ...(leafId !== undefined ? { leafId, branchOnly: true } : {}),
        ...(options.redaction ? { redaction: options.redaction } : {}),
        ...(options.generator !== undefined ? { generator: options.generator } : {}),
      });
    case "json": {
      const { items, ...head } = buildDocument(session, { view, leafId });
      return documentJsonChunks(head, items);
    }
    case "jsonl":
      return jsonlChunks(branchJsonlLines(session, { leafId, allBranches: view === "all-branches" }));
  }
}

/**
 * The document as JSON (`JSON.stringify(doc, null, 2)` and a newline), its items written one at
 * a time from `items` (which may be made as they are read), DEL, C1 and bidi controls as `\u`
 * escapes (writeJson: any depth). An item nested beyond 5,000 levels, where the iterative
 * serializer writes compactly from level 1,000 on, is compact from its own level 1,000.
 */
export function* documentJsonChunks(
  head: Omit<RenderDocument, "items">,
  items: Iterable<DocumentItem>,
): Generator<string> {
  let text = "";
  writeJson(
    head,
    (piece) => {
      text += piece;
    },
    2,
  );
  // Without its closing "\n}": the items go last, as in the document.
  yield text.slice(0, -2);
  let first = true;
  for (const item of items) {
    let piece = first ? ',\n  "items": [\n    ' : ",\n    ";
    first = false;
    writeJson(
      item,
      (part) => {
        piece += part.replaceAll("\n", "\n    ");
      },
      2,
    );
    yield piece;
  }
  yield first ? ',\n  "items": []\n}\n' : "\n  ]\n}\n";
}

/** JSONL lines with DEL, C1 and bidi controls as `\u` escapes: the same values, nothing a terminal acts on. */
function* jsonlChunks(lines: Iterable<string>): Generator<string> {
  for (const line of lines) yield `${escapeTerminalUnsafe(line)}\n`;
}

/** Where an entry of a streamed branch sits, and the entry. */
export interface StreamedEntry {
  entry: AnyEntry;
  place: TreePlace;
}

/**
 * A branch whose session is not held in memory (a streamed export): what its document says
 * of the session, the tool calls of every assistant message, and the branch's entries, root
 * first, read once as the export is written. The caller reads the file (the CLI: node-store's
 * lazy open); the export's bytes are {@link exportChunks}'s for the same session and options.
 */
export interface StreamedBranch extends DocumentSessionParts {
  toolCalls: ToolCallLookup;
  /** The branch's last entry's id (the view's leaf), null for an empty branch. */
  viewLeafId: string | null;
  /** Entries on the branch. */
  pathLength: number;
  path: Iterable<StreamedEntry>;
}

/** The formats a branch can be streamed in (an HTML page holds the whole session). */
export const STREAMED_FORMATS = ["md", "json", "jsonl"] as const;
export type StreamedFormat = (typeof STREAMED_FORMATS)[number];

/** A streamed branch as an export file, in pieces: Markdown, the document as JSON, or JSONL. */
export function streamedExportChunks(
  branch: StreamedBranch,
  options: Pick<ExportOptions, "full" | "cutHint" | "images"> & { format: StreamedFormat },
): Iterable<string> {
  const path = branch.path;
  if (options.format === "jsonl")
    return jsonlChunks(
      jsonlLines(
        branch.header,
        (function* () {
          for (const { entry } of path) yield entry;
        })(),
      ),
    );
  const items = (function* () {
    for (const { entry, place } of path)
      yield placedItem(entry, { ...place, toolCalls: branch.toolCalls, label: branch.labels.get(entry.id) });
  })();
  const session = documentSessionOf(branch);
  const view = { kind: "branch" as const, leafId: branch.viewLeafId };
  if (options.format === "md")
    return markdownChunks({ session, view, itemCount: branch.pathLength }, items, markdownOptions(options));
  return documentJsonChunks({ format: DOCUMENT_FORMAT, version: DOCUMENT_VERSION, session, view }, items);
}
