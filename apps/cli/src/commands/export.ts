/**
 * `export <session>`: a session for sharing, through the render layer: Markdown, one
 * self-contained HTML page, the document model as JSON, or a branch as a clean v3 JSONL file;
 * optionally redacted. Writes to `-o FILE` (through a temporary file and a rename, so a
 * failed export leaves no half-written file) or to stdout.
 *
 * A branch in Markdown, JSON or JSONL is streamed (`streamed-export.ts`: entries read one at a
 * time, the same bytes), whatever the session's size. Every other export holds the session
 * in memory: it is refused, before anything is read, when the session cannot fit in this
 * process's heap ({@link assertFitsInMemory}), and an HTML page beyond {@link HTML_LIMIT}.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, extname, join, relative } from "node:path";
import { getHeapStatistics } from "node:v8";
import { openLazySessionFile, statPath } from "@pi-session/node-store";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportOptions,
  Redactor,
  STREAMED_FORMATS,
  type StreamedFormat,
  compilePattern,
  createRenderSession,
  decodeBase64,
  exportChunks,
  type RedactionReport,
  type RenderSession,
  redactSession,
  streamedExportChunks,
  type ViewKind,
} from "@pi-session/render";
import { formatSize } from "@pi-session/render/readable";
import { secretCounter, secretDetector } from "@pi-session/search";
import { CliError, UsageError } from "../errors.js";
import type { Action, Context } from "../program.js";
import { lazyIds, streamedBranch } from "../streamed-export.js";
import { VERSION } from "../version.js";
import { entryId, entryIdOption, openSession, sessionPath, stringOption } from "./common.js";

/**
 * Heap an in-memory export takes per byte of the session file, at most (measured on a
 * generated 64 MB session: JSON and Markdown need about 4x, JSONL and HTML under 2.5x;
 * decision 155). An export that would not fit is refused before anything is read.
 */
const HEAP_PER_FILE_BYTE: Record<ExportFormat, number> = { md: 5, json: 5, jsonl: 3, html: 3 };

/**
 * The largest session an HTML page is made of. The page carries the session as JSON that its
 * script reads as one string: past about 512 MB (V8's longest string, in the browser that opens
 * it) it could not load, and escaping for the page makes it longer than the file.
 */
export const HTML_LIMIT = 256 * 1024 * 1024;

/** Why an export holds the session in memory rather than streaming it. */
type InMemoryBecause = "format" | "view" | "file";

const MORE_HEAP = "give Node more heap (NODE_OPTIONS=--max-old-space-size=MB)";
const HINTS: Record<InMemoryBecause, string> = {
  format: `Export it as Markdown, JSON or JSONL (the branch view streams them, at any size); or ${MORE_HEAP}.`,
  view: `The branch view (without --all-branches or --context) exports Markdown, JSON and JSONL streamed, at any size; or ${MORE_HEAP}.`,
  file: `Only a v3 file with a whole last line and unique ids streams (\`pi-session migrate --write\` makes an older file v3, \`pi-session repair\` mends one); or ${MORE_HEAP}.`,
};

/** Refuses an in-memory export of `size` bytes that this process's heap cannot hold. */
function assertFitsInMemory(
  path: string,
  size: number,
  format: ExportFormat,
  because: InMemoryBecause,
): void {
  if (format === "html" && size > HTML_LIMIT)
    throw new CliError(
      `${path}: ${formatSize(size)} is too large for an HTML page (at most ${formatSize(HTML_LIMIT)}: a browser could not load the session it carries)`,
      { hint: "Export it as Markdown, JSON or JSONL (the branch view streams them, at any size)." },
    );
  const heap = getHeapStatistics();
  const available = heap.heap_size_limit - heap.used_heap_size;
  const needed = size * HEAP_PER_FILE_BYTE[format];
  if (needed <= available) return;
  throw new CliError(
    `${path}: ${formatSize(size)} is too large to export as ${format} in memory: that takes about ${formatSize(needed)} of heap, and this process has ${formatSize(available)}`,
    { hint: HINTS[because] },
  );
}

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

/**
 * The images of a Markdown export, written beside it into `<name>-images/` as the export
 * meets them (a streamed export keeps none in memory).
 */
class ImageFiles {
  readonly written: Written[] = [];
  readonly dir: string;
  readonly link: string;
  constructor(markdownPath: string) {
    const stem = basename(markdownPath, extname(markdownPath));
    this.dir = join(dirname(markdownPath), `${stem}-images`);
    this.link = relative(dirname(markdownPath), this.dir).split("\\").join("/");
  }
  add(data: string, extension: string, number: number): string {
    const name = `image-${number}.${extension}`;
    if (this.written.length === 0) mkdirSync(this.dir, { recursive: true });
    const path = join(this.dir, name);
    this.written.push({ path, bytes: writeFileAtomically(path, [decodeBase64(data)]) });
    return `${this.link}/${name}`;
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

  const view: ViewKind = context ? "context" : allBranches ? "all-branches" : "branch";
  const images = format === "md" && output !== undefined ? new ImageFiles(output) : undefined;
  const common: Pick<ExportOptions, "full" | "cutHint" | "images"> = {
    full,
    cutHint: full ? "" : "; `pi-session export --full` keeps them",
    ...(images ? { images: (image, number) => images.add(image.data, image.extension, number) } : {}),
  };
  const path = await sessionPath(ctx, arg);
  const streams = view === "branch" && (STREAMED_FORMATS as readonly string[]).includes(format);

  // A branch as Markdown, JSON or JSONL: streamed, where the lazy open takes the file.
  const file = streams ? openLazySessionFile(path) : undefined;
  if (file !== undefined) {
    try {
      const typed = stringOption(options, "leaf", "--leaf");
      const leafId =
        typed === undefined ? undefined : entryId(lazyIds(file), typed, { what: "--leaf", path });
      const report = redact ? new Redactor({ patterns, detector: secretDetector() }) : undefined;
      const branch = streamedBranch(file, {
        leafId,
        ...(report
          ? { redact: { report, again: new Redactor({ patterns, detector: secretDetector() }) } }
          : {}),
      });
      if (branch !== undefined) {
        if (report) ctx.io.info(describeRedaction(report.report));
        const chunks = streamedExportChunks(branch, { ...common, format: format as StreamedFormat });
        return await write(ctx, output, format, chunks, images, redact);
      }
    } finally {
      file.close();
    }
  }

  // What cannot be read is reported by the read itself.
  const size = (() => {
    try {
      const st = statPath(path);
      return st?.kind === "file" ? st.size : undefined;
    } catch {
      return undefined;
    }
  })();
  if (size !== undefined)
    assertFitsInMemory(path, size, format, streams ? "file" : format === "html" ? "format" : "view");
  const loaded = await openSession(ctx, path);
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

  const chunks = exportChunks(session, {
    format,
    view,
    leafId,
    ...common,
    ...(report ? { redaction: report } : {}),
    generator: `pi-session ${VERSION}`,
  });
  if (report) ctx.io.info(describeRedaction(report));
  return await write(ctx, output, format, chunks, images, redact);
};

/**
 * Writes the export to `output` (atomically) or stdout, and says what was written. Not
 * redacted, what is written is scanned as it goes, and a secret in it said afterwards.
 */
async function write(
  ctx: Context,
  output: string | undefined,
  format: ExportFormat,
  chunks: Iterable<string>,
  images: ImageFiles | undefined,
  redacted: boolean,
): Promise<number> {
  const counter = redacted ? undefined : secretCounter(secretDetector());
  const scanned = counter ? mapChunks(chunks, (chunk) => counter.scan(chunk)) : chunks;
  if (output === undefined) {
    // Images cannot go beside stdout: the Markdown notes each one it leaves out.
    await ctx.io.documentChunks(scanned);
    warnSecrets(ctx, counter);
    return 0;
  }
  let written: Written;
  try {
    written = { path: output, bytes: writeFileAtomically(output, scanned) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new CliError(`${output}: cannot write: ${code}`);
  }
  const imageFiles = images?.written ?? [];
  ctx.io.info(
    `wrote ${output} (${written.bytes} bytes, ${format})${imageFiles.length > 0 ? ` and ${imageFiles.length} image${imageFiles.length === 1 ? "" : "s"} in ${images?.dir}` : ""}`,
  );
  warnSecrets(ctx, counter);
  return 0;
}

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
