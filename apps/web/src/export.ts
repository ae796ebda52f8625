/**
 * The export buttons' downloads: a session as Markdown, one HTML page, the document model as
 * JSON or a branch as JSONL, made by the render layer's renderers with the options
 * `pi-session export` gives them (the same view, leaf and cut hints), so a download equals
 * the CLI's output for the same session and options.
 */
import {
  type RenderSession,
  type ViewKind,
  branchJsonlLines,
  buildDocument,
  escapeTerminalUnsafe,
  renderHtmlChunks,
  renderMarkdown,
  writeJson,
} from "@pi-session/render";

export const EXPORT_FORMATS = ["md", "html", "json", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const CONTENT_TYPES: Record<ExportFormat, string> = {
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
  jsonl: "application/x-ndjson; charset=utf-8",
};

export interface ExportRequest {
  format: ExportFormat;
  view: ViewKind;
  leafId: string | undefined;
  generator: string;
}

export interface ExportResult {
  contentType: string;
  fileName: string;
  chunks: Iterable<string>;
}

/** The file of one export (see the module header). */
export function exportSession(session: RenderSession, id: string, request: ExportRequest): ExportResult {
  const { format, view, leafId } = request;
  const stem = `${id.replace(/[^A-Za-z0-9._-]/g, "_") || "session"}${view === "branch" ? "" : `-${view}`}`;
  let chunks: Iterable<string>;
  switch (format) {
    case "md":
      chunks = [
        renderMarkdown(buildDocument(session, { view, leafId }), {
          cutHint: "; `pi-session export --full` keeps them",
        }),
      ];
      break;
    case "html":
      chunks = renderHtmlChunks(session, {
        view,
        ...(leafId !== undefined ? { leafId } : {}),
        generator: request.generator,
      });
      break;
    case "json": {
      const pieces: string[] = [];
      writeJson(buildDocument(session, { view, leafId }), (piece) => pieces.push(piece), 2);
      pieces.push("\n");
      chunks = pieces;
      break;
    }
    case "jsonl":
      chunks = (function* () {
        for (const line of branchJsonlLines(session, { leafId, allBranches: view === "all-branches" }))
          yield `${escapeTerminalUnsafe(line)}\n`;
      })();
      break;
  }
  return { contentType: CONTENT_TYPES[format], fileName: `${stem}.${format}`, chunks };
}
