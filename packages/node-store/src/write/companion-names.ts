/**
 * The names of the files a writer keeps beside a session: `<file>.torn-<time>[-N]` for a torn
 * last line moved aside, `<file>.bak-<time>[-N]` for a rewrite's backup (see `rewrite.ts`).
 */
import { errorCode } from "../errors.js";
import type { WriterFs } from "../fs/writer-fs.js";

export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, "-");
}

export function sidecarPathFor(fs: WriterFs, path: string, now: Date): string {
  const base = `${path}.torn-${fileTimestamp(now)}`;
  let candidate = base;
  for (let i = 1; ; i++) {
    try {
      fs.statSync(candidate);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return candidate;
      throw error;
    }
    candidate = `${base}-${i}`;
  }
}
