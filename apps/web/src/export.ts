/**
 * The export buttons' downloads: a session as Markdown, one HTML page, the document model as
 * JSON or a branch as JSONL, made by render's `exportChunks` with the options `pi-session
 * export` gives it (the same view, leaf and cut hint), so a download equals the CLI's output
 * for the same session and options; this adds the file's name and content type.
 */
import { type ExportFormat, type RenderSession, type ViewKind, exportChunks } from "@pi-session/render";

export { EXPORT_FORMATS, type ExportFormat } from "@pi-session/render";

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
  const chunks = exportChunks(session, {
    format,
    view,
    leafId,
    cutHint: "; `pi-session export --full` keeps them",
    generator: request.generator,
  });
  return { contentType: CONTENT_TYPES[format], fileName: `${stem}.${format}`, chunks };
}
