/**
 * The session database's secret marks as the commands read them (`secrets`, `ls --secrets`):
 * the database brought up to date, its secret scan carried on from where it stopped (a
 * progress line on a terminal), then every session file's marks, and which files it knows.
 */
import { type SecretMarks, secretDetector } from "@pi-session/search";
import type { Context } from "./program.js";
import { openSyncedDatabase } from "./session-database.js";

export interface ScannedMarks {
  /** The marks of the files with secrets found (every file indexed is wholly scanned). */
  marks: Map<string, SecretMarks>;
  /** Whether the database indexed this file as a session (and so scanned it). */
  indexed(path: string): boolean;
}

export async function scannedMarks(ctx: Context, options: { persistent: boolean }): Promise<ScannedMarks> {
  const { db } = await openSyncedDatabase(ctx, options);
  try {
    const progress = ctx.io.progress("scanning for secrets");
    try {
      await db.scanSecrets({
        detector: secretDetector(),
        onProgress: (done, total) => progress.update(done, total),
      });
    } finally {
      progress.end();
    }
    const marks = new Map((await db.secretMarks()).map((m) => [m.path, m]));
    const sessions = new Set(
      [...db.database.files().values()].filter((f) => f.version > 0).map((f) => f.path),
    );
    return { marks, indexed: (path) => sessions.has(path) && marks.get(path)?.complete !== false };
  } finally {
    db.close();
  }
}
