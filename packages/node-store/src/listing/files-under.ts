/**
 * `listSessionFilesUnder`: every `.jsonl` regular file below a directory, at any depth, in path
 * order. Use it for a directory given as an argument (`validate DIR`, `migrate DIR`), where
 * sessions may sit anywhere below; a sessions root, with its fixed layout, is listed by
 * `listStoreFiles` and the listings.
 */
import { type Dirent, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export interface FilesUnderOptions {
  /**
   * Called for a directory that cannot be read and a `.jsonl` link that leads nowhere (or is
   * denied); the walk goes on. It may throw to stop the walk. Without it such errors are thrown.
   */
  onUnreadable?: (path: string, error: unknown) => void;
  /** Called for a `.jsonl` entry that is no regular file (a FIFO, socket or device, or a link to one or to a directory), passed by. */
  onNotRegular?: (path: string) => void;
}

/**
 * The `.jsonl` regular files below `dir`, sorted by path. Directories are walked (not through
 * links); a `.jsonl` link is followed to see whether it is a regular file; FIFOs, sockets and
 * devices are never sessions and are passed by.
 */
export function listSessionFilesUnder(dir: string, opts: FilesUnderOptions = {}): string[] {
  const report =
    opts.onUnreadable ??
    ((_path: string, error: unknown) => {
      throw error;
    });
  const found: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch (error) {
      report(current, error);
      continue;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (!entry.name.endsWith(".jsonl")) continue;
      else if (entry.isFile()) found.push(path);
      else if (!entry.isSymbolicLink()) opts.onNotRegular?.(path);
      else if (linksToFile(path, report)) found.push(path);
      else if (opts.onNotRegular && existsSync(path)) opts.onNotRegular(path);
    }
  }
  return found.sort();
}

/** Whether a link leads to a regular file (one to a directory is not followed). */
function linksToFile(path: string, report: (path: string, error: unknown) => void): boolean {
  try {
    return statSync(path).isFile();
  } catch (error) {
    report(path, error);
    return false;
  }
}
