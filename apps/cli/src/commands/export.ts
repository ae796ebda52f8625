/**
 * `export <session>`: a session for sharing, through the render layer: Markdown, one
 * self-contained HTML page, the document model as JSON, or a branch as a clean v3 JSONL file;
 * optionally redacted. Writes to `-o FILE` (through a temporary file and a rename, so a
 * failed export leaves no half-written file) or to stdout.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, extname, join, relative } from "node:path";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  compilePattern,
  createRenderSession,
  decodeBase64,
  exportChunks,
  type RedactionReport,
  type RenderSession,
  redactSession,
  type ViewKind,
} from "@pi-session/render";
import { secretCounter, secretDetector } from "@pi-session/search";
import { CliError, UsageError } from "../errors.js";
import type { Action, Context } from "../program.js";
import { VERSION } from "../version.js";
import { entryIdOption, openSession, stringOption } from "./common.js";

const EXTENSIONS: Record<string, ExportFormat> = {
  ".md": "md",
  ".markdown": "md",
  ".html": "html",
  ".htm": "html",
  ".json": "json",
  ".jsonl": "jsonl",
};

function formatOption(
  ctx: Context,
  options: Record<string, unknown>,
  output: string | undefined,
): ExportFormat {
  const given = stringOption(options, "format", "--format");
  if (given !== undefined) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(given))
      throw new UsageError(`--format ${given}: not one of ${EXPORT_FORMATS.join(", ")}`);
    if (ctx.json && given !== "json") throw new UsageError(`--json and --format ${given} disagree`);
    return given as ExportFormat;
  }
  if (ctx.json) return "json";
  if (output !== undefined) return EXTENSIONS[extname(output).toLowerCase()] ?? "md";
  return "md";
}

/** `--redact-pattern` given once or more (cac gives a string, or an array for repeats). */
function patternOptions(options: Record<string, unknown>): string[] {
  const raw = options.redactPattern;
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((value) => {
    if (value === true || value === "") throw new UsageError("--redact-pattern needs a regular expression");
    const pattern = String(value);
    try {
      compilePattern(pattern);
    } catch (error) {
      throw new UsageError(`--redact-pattern: ${(error as Error).message}`);
    }
    return pattern;
  });
}

function describeRedaction(report: RedactionReport): string {
  if (report.total === 0) return "redacted: nothing found to remove";
  const kinds = Object.entries(report.counts).map(([kind, n]) => `${kind} ${n}`);
  return `redacted ${report.total}: ${kinds.join(", ")}`;
}

/** Writes chunks to `path` through `<path>.tmp-<pid>` and a rename. */
function writeFileAtomically(path: string, chunks: Iterable<string | Uint8Array>): number {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
  let bytes = 0;
  const fd = openSync(temp, "w", 0o644);
  try {
    for (const chunk of chunks) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      let offset = 0;
      while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
      bytes += buffer.length;
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  return bytes;
}

interface Written {
  path: string;
  bytes: number;
}

/** The images of a Markdown export, written beside it into `<name>-images/`. */
class ImageFiles {
  readonly files: { name: string; data: string }[] = [];
  readonly dir: string;
  readonly link: string;
  constructor(markdownPath: string) {
    const stem = basename(markdownPath, extname(markdownPath));
    this.dir = join(dirname(markdownPath), `${stem}-images`);
    this.link = relative(dirname(markdownPath), this.dir).split("\\").join("/");
  }
  add(data: string, extension: string, number: number): string {
    const name = `image-${number}.${extension}`;
    this.files.push({ name, data });
    return `${this.link}/${name}`;
  }
  write(): Written[] {
    if (this.files.length === 0) return [];
    mkdirSync(this.dir, { recursive: true });
    return this.files.map(({ name, data }) => {
      const path = join(this.dir, name);
      return { path, bytes: writeFileAtomically(path, [decodeBase64(data)]) };
    });
  }
}

export const action: Action = async (ctx, [arg], options) => {
  const output = stringOption(options, "output", "-o");
  const format = formatOption(ctx, options, output);
  const allBranches = options.allBranches === true;
  const context = options.context === true;
  const full = options.full === true;
  const patterns = patternOptions(options);
  const redact = options.redact === true || patterns.length > 0;
  if (allBranches && context)
    throw new UsageError("--all-branches and --context are different views; pick one");
  if (context && format === "jsonl")
    throw new UsageError(
      "--context has no JSONL form (the context is messages, not entries)",
      "Use --format json.",
    );
  if (format === "html" && output === undefined && ctx.io.stdoutIsTTY)
    throw new UsageError(
      "an HTML page is not for a terminal",
      "Write it with -o FILE.html, or redirect stdout.",
    );

  const loaded = await openSession(ctx, arg);
  const leafId = entryIdOption(loaded, options, "leaf", "--leaf");
  if (leafId !== undefined && allBranches)
    throw new UsageError("--leaf and --all-branches do not go together");

  let session: RenderSession = createRenderSession({
    header: loaded.header,
    entries: loaded.entries,
    index: loaded.index,
    formatVersion: loaded.version,
    diagnostics: loaded.diagnostics,
  });
  let report: RedactionReport | undefined;
  if (redact) {
    const redacted = redactSession(session, { patterns, detector: secretDetector() });
    session = redacted.session;
    report = redacted.report;
  }

  const view: ViewKind = context ? "context" : allBranches ? "all-branches" : "branch";
  const images = format === "md" && output !== undefined ? new ImageFiles(output) : undefined;
  const chunks = exportChunks(session, {
    format,
    view,
    leafId,
    full,
    cutHint: full ? "" : "; `pi-session export --full` keeps them",
    ...(images ? { images: (image, number) => images.add(image.data, image.extension, number) } : {}),
    ...(report ? { redaction: report } : {}),
    generator: `pi-session ${VERSION}`,
  });

  if (report) ctx.io.info(describeRedaction(report));
  // Not redacted: what is written is scanned as it goes, and a secret in it said afterwards.
  const counter = redact ? undefined : secretCounter(secretDetector());
  const scanned = counter ? mapChunks(chunks, (chunk) => counter.scan(chunk)) : chunks;
  if (output === undefined) {
    // Images cannot go beside stdout: the Markdown notes each one it leaves out.
    for (const chunk of scanned) ctx.io.document(chunk);
    warnSecrets(ctx, counter);
    return 0;
  }
  let written: Written;
  try {
    written = { path: output, bytes: writeFileAtomically(output, scanned) };
    const imageFiles = images?.write() ?? [];
    ctx.io.info(
      `wrote ${output} (${written.bytes} bytes, ${format})${imageFiles.length > 0 ? ` and ${imageFiles.length} image${imageFiles.length === 1 ? "" : "s"} in ${images?.dir}` : ""}`,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`${output}: cannot write: ${code ?? (error as Error).message}`);
  }
  warnSecrets(ctx, counter);
  return 0;
};

function* mapChunks<T>(chunks: Iterable<T>, fn: (chunk: T) => T): Iterable<T> {
  for (const chunk of chunks) yield fn(chunk);
}

/** Says (on stderr) that the exported text holds secrets, by kind, and how to leave them out. */
function warnSecrets(ctx: Context, counter: ReturnType<typeof secretCounter> | undefined): void {
  if (!counter || counter.total === 0) return;
  const kinds = Object.entries(counter.counts)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
  ctx.io.warn(
    `the export holds ${counter.total} secret${counter.total === 1 ? "" : "s"} (${kinds}); --redact replaces them with markers`,
  );
}
