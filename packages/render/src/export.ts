/**
 * A session as one export file: Markdown, one HTML page, the document model as JSON, or a
 * branch as JSONL, made by the renderers with one set of options. Use it where a session is
 * exported (the CLI's `export`, the web app's downloads), so the same session and options give
 * the same bytes everywhere.
 */
import type { ImageBlock, ViewKind } from "./model/shapes.js";
import { buildDocument } from "./model/document.js";
import { renderHtmlChunks } from "./html.js";
import { escapeTerminalUnsafe, writeJson } from "./json.js";
import { branchJsonlLines } from "./jsonl.js";
import { renderMarkdown } from "./markdown.js";
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

/** The export file's text, in pieces (an HTML page is written as it is made). */
export function exportChunks(session: RenderSession, options: ExportOptions): Iterable<string> {
  const { view, leafId } = options;
  switch (options.format) {
    case "md":
      return [
        renderMarkdown(buildDocument(session, { view, leafId }), {
          ...(options.full !== undefined ? { full: options.full } : {}),
          ...(options.cutHint !== undefined ? { cutHint: options.cutHint } : {}),
          ...(options.images ? { images: options.images } : {}),
        }),
      ];
    case "html":
      return renderHtmlChunks(session, {
        view,
        // A page of a chosen branch holds that branch only; the whole tree is the default.
        ...(leafId !== undefined ? { leafId, branchOnly: true } : {}),
        ...(options.redaction ? { redaction: options.redaction } : {}),
        ...(options.generator !== undefined ? { generator: options.generator } : {}),
      });
    case "json": {
      // writeJson: any depth, and DEL, C1 and bidi controls as \u escapes.
      const pieces: string[] = [];
      writeJson(buildDocument(session, { view, leafId }), (piece) => pieces.push(piece), 2);
      pieces.push("\n");
      return pieces;
    }
    case "jsonl":
      // DEL, C1 and bidi controls as \u escapes: the same values, nothing a terminal acts on.
      return (function* () {
        for (const line of branchJsonlLines(session, { leafId, allBranches: view === "all-branches" }))
          yield `${escapeTerminalUnsafe(line)}\n`;
      })();
  }
}
