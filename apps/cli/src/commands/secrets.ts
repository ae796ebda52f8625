/**
 * `secrets [<session>... | --all]`: finds credentials in every part of sessions (messages,
 * thinking, tool arguments and output, custom entries, the header, malformed lines) with the
 * shared detector (`@pi-session/search`'s `secretDetector`: secretlint's recommended rules and
 * render's context rules), and reports file, line, entry id, kind and a masked preview: never
 * a secret, on any output. Sessions of the store go through the session database's marks
 * first (`secret-marks.ts`: a session scanned clean before is not read again); others are
 * read whole.
 *
 * `--redact --write` rewrites each file that holds one atomically with a backup (node-store's
 * rewrite), each secret replaced by `[REDACTED:<kind>]`: only the lines that held one change,
 * every other line goes back byte for byte.
 */
import type { RawRecord, SessionRecord } from "@pi-session/format";
import { removeSession, rewriteSessionFile } from "@pi-session/node-store";
import { readFileBytes } from "@pi-session/node-store/internal";
import { Redactor, type SecretDetector, fitPieces } from "@pi-session/render";
import { type SecretFinding, maskedPreview, redactSecrets, secretDetector } from "@pi-session/search";
import { scannedMarks } from "../secret-marks.js";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import type { Action, Context } from "../program.js";
import { sessionTargets } from "../targets.js";
import { oneLineField } from "../terminal-safe.js";
import { exitCode, unreadable, warnSkipped } from "../unreadable.js";

/** One secret as reported (`--json` prints these). */
interface Reported {
  path: string;
  line: number;
  entryId: string | null;
  kind: string;
  preview: string;
}

interface FileScan {
  findings: Reported[];
  /** The records to write back with each secret replaced, when there was one. */
  redacted: SessionRecord[] | undefined;
  size: number;
  /** Why the file cannot be rewritten (a line with a secret that is not valid UTF-8). */
  unwritable?: string;
}

const encoder = new TextEncoder();

/** A line's original bytes, as a raw record: written back unchanged. */
function unchanged(bytes: Uint8Array, r: SessionRecord): RawRecord {
  const { line, offset, byteLength, terminated } = r;
  return {
    kind: "raw",
    line,
    offset,
    byteLength,
    terminated,
    bytes: bytes.subarray(offset, offset + byteLength),
    text: "",
    reason: "unchanged",
  };
}

/** Scans one file's records; with `redact`, also makes the records to write. */
async function scanFile(path: string, detector: SecretDetector, redact: boolean): Promise<FileScan> {
  const read = await readRecords(path);
  const findings: Reported[] = [];
  const changed = new Map<number, SessionRecord>();
  let unwritable: string | undefined;
  for (const r of read.records) {
    if (r.kind === "json") {
      const { value, findings: found } = redactSecrets(r.value, detector);
      if (found.length === 0) continue;
      const entryId = r.value.type === "session" ? null : typeof r.value.id === "string" ? r.value.id : null;
      for (const f of found) findings.push({ path, line: r.line, entryId, kind: f.kind, preview: f.preview });
      changed.set(r.line, { ...r, value });
      continue;
    }
    // A line that is no JSON object: its text is searched as it is.
    const found: SecretFinding[] = [];
    const text = new Redactor({
      detector,
      onSecrets: (t, matches) => {
        for (let i = 0; i < matches.length; i++)
          found.push({ kind: (matches[i] as { kind: string }).kind, preview: maskedPreview(t, matches, i) });
      },
    }).text(r.text);
    if (found.length === 0) continue;
    for (const f of found)
      findings.push({ path, line: r.line, entryId: null, kind: f.kind, preview: f.preview });
    const bytes = encoder.encode(text);
    if (new TextDecoder().decode(r.bytes) !== r.text || r.text.includes("\uFFFD"))
      unwritable ??= `line ${r.line} holds a secret but is not valid UTF-8: redact it by hand`;
    changed.set(r.line, { ...r, bytes, byteLength: bytes.length, text });
  }
  if (!redact || changed.size === 0)
    return { findings, redacted: undefined, size: read.size, ...(unwritable ? { unwritable } : {}) };
  const bytes = readFileBytes(path, 0, read.size);
  if (bytes.length !== read.size) throw new Error(`${path}: changed while it was read`);
  const redacted = read.records.map((r) => changed.get(r.line) ?? unchanged(bytes, r));
  return { findings, redacted, size: read.size, ...(unwritable ? { unwritable } : {}) };
}

/**
 * The backups of a `--redact --write` still hold the secrets: said on stderr, and on a terminal
 * the user is offered to delete them now (unlinked, not moved to the trash, which would keep
 * them).
 */
async function offerToRemoveBackups(ctx: Context, backups: readonly string[]): Promise<void> {
  if (backups.length === 0) return;
  const these = backups.length === 1 ? "the backup" : `the ${backups.length} backups`;
  ctx.io.warn(`${these} (*.bak-<time> beside each file) still hold the secrets`);
  if (ctx.stdinIsTTY && !ctx.json) {
    const answer = await ctx.prompt(`Delete ${these} now? [y/N] `);
    if (/^y(es)?$/i.test(answer.trim())) {
      for (const path of backups) {
        try {
          removeSession(path, { trash: false, keepCompanions: true });
          ctx.io.info(oneLineField(`deleted ${path}`));
        } catch (error) {
          ctx.io.error(oneLineField(`${path}: not deleted: ${(error as Error).message}`));
        }
      }
      return;
    }
  }
  ctx.io.info(
    `delete ${backups.length === 1 ? "it" : "them"} once you no longer need ${backups.length === 1 ? "it" : "them"} (or run with --no-backup)`,
  );
}

function summaryOf(findings: readonly Reported[]): string {
  const kinds = new Map<string, number>();
  for (const f of findings) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  return [...kinds].map(([k, n]) => `${k} ${n}`).join(", ");
}

export const action: Action = async (ctx, [paths], options) => {
  const args = (paths ?? []) as string[];
  const write = options.write === true;
  const redact = options.redact === true;
  if (write && !redact) throw new UsageError("--write rewrites with --redact: give both");
  if (options.backup === false && !write) throw new UsageError("--no-backup is about --redact --write");
  const named = await sessionTargets(ctx, args, options, "scanning");
  const skipped = named.unreadable;
  const detector = secretDetector();
  // The store's sessions the database scanned clean are not read again.
  const scanned = await scannedMarks(ctx, { persistent: options.index !== false });
  const clean = new Set(named.files.filter((f) => scanned.indexed(f) && !scanned.marks.has(f)));
  const all: Reported[] = [];
  const c = ctx.io.out;
  let filesWith = 0;
  let failed = 0;
  const written: { path: string; backupPath: string | null }[] = [];
  const progress = ctx.io.progress("reading");
  for (const [i, file] of named.files.entries()) {
    progress.update(i + 1, named.files.length);
    if (clean.has(file)) continue;
    let scan: FileScan;
    try {
      scan = await scanFile(file, detector, redact && write);
    } catch (error) {
      const item = unreadable(file, error);
      if (!item) throw error;
      skipped.push(item);
      continue;
    }
    if (scan.findings.length === 0) continue;
    filesWith++;
    all.push(...scan.findings);
    if (!ctx.json) {
      progress.end();
      ctx.io.line(c.bold(oneLineField(file)));
      for (const f of scan.findings)
        ctx.io.line(
          fitPieces(
            [
              { text: `  line ${f.line}  ` },
              { text: oneLineField(f.entryId ?? (f.line === 1 ? "header" : "-")), style: c.dim },
              { text: "  " },
              { text: f.kind, style: c.yellow },
              { text: "  " },
              { text: oneLineField(f.preview) },
            ],
            ctx.io.columns,
          ),
        );
    }
    if (!scan.redacted) {
      if (write && scan.unwritable) {
        failed++;
        ctx.io.error(oneLineField(`${file}: not rewritten: ${scan.unwritable}`));
      }
      continue;
    }
    if (scan.unwritable) {
      failed++;
      ctx.io.error(oneLineField(`${file}: not rewritten: ${scan.unwritable}`));
      continue;
    }
    try {
      const result = rewriteSessionFile(file, scan.redacted, {
        backup: options.backup !== false,
        expectedSize: scan.size,
        keepTornTail: true,
      });
      written.push({ path: file, backupPath: result.backupPath ?? null });
      if (!ctx.json)
        ctx.io.line(
          c.green(
            oneLineField(
              `  rewritten, ${scan.findings.length} secret${scan.findings.length === 1 ? "" : "s"} replaced${result.backupPath ? `; backup ${result.backupPath}` : ""}`,
            ),
          ),
        );
    } catch (error) {
      failed++;
      ctx.io.error(oneLineField(`${file}: not rewritten: ${(error as Error).message}`));
    }
  }
  progress.end();
  warnSkipped(ctx.io, skipped, named.notSessions);
  const count = named.files.length;
  if (ctx.json) {
    ctx.io.printJson({ findings: all, scanned: count, written, unreadable: skipped });
  } else if (all.length === 0) {
    ctx.io.info(`no secrets found in ${count} session file${count === 1 ? "" : "s"}`);
  } else {
    ctx.io.line(
      `${all.length} secret${all.length === 1 ? "" : "s"} in ${filesWith} of ${count} session file${count === 1 ? "" : "s"} (${summaryOf(all)})`,
    );
    if (!redact)
      ctx.io.info("pi-session secrets --redact --write replaces them with markers (keeping a backup)");
    else if (!write)
      ctx.io.info(
        "dry run: nothing written; run again with --redact --write to replace them (a backup is kept)",
      );
  }
  await offerToRemoveBackups(
    ctx,
    written.flatMap((w) => (w.backupPath !== null ? [w.backupPath] : [])),
  );
  // Found (or a rewrite failed): exit 1; all replaced with --write: 0.
  const outcome =
    failed > 0 || (all.length > 0 && !(write && written.length === filesWith)) ? EXIT_FAILURE : EXIT_OK;
  return exitCode(skipped, outcome);
};
