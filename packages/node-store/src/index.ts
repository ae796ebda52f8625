/**
 * @pi-session/node-store: everything of pi-session that touches the filesystem, for a tool
 * that reads, writes or lists pi's sessions on disk. Layout (agent dir, sessions root, per-cwd
 * directories, file names), streaming reads, header and tail scans, safe appends under a
 * cross-process lock, torn-tail repair, atomic rewrites, removal to the trash, and listing with
 * a metadata cache. See the README for the guarantees; `./internal` is for sibling packages.
 */

// Layout: where sessions live and how their files are named.
export {
  ENV_AGENT_DIR,
  ENV_SESSION_DIR,
  type Env,
  type SessionsRoot,
  type SessionsRootOptions,
  encodeCwd,
  getAgentDir,
  getDefaultSessionsRoot,
  getSessionsRoot,
  readSessionDirSetting,
  resolveSessionsRoot,
  sessionDirForCwd,
} from "./layout/sessions-root.js";
export {
  UnsafePathError,
  expandTilde,
  headerCwdMatches,
  isInside,
  pathsEqual,
  resolvePiPath,
  safeJoin,
} from "./layout/pi-paths.js";
export {
  type ParsedSessionFileName,
  assertValidSessionId,
  isValidSessionId,
  parseSessionFileName,
  sessionFileName,
  sessionIdOfFileName,
  sessionFilePath,
} from "./layout/file-names.js";

// Errors.
export {
  type NonRegularKind,
  SessionFileChangedError,
  SessionFileRewrittenError,
  SessionFileExistsError,
  SessionFileNotFoundError,
  SessionFileNotRegularError,
  SessionHeaderScanLimitError,
  SessionLockTimeoutError,
} from "./errors.js";

// Reading.
export {
  type ReadSessionOptions,
  type SessionFileContents,
  readSessionFile,
  readSessionFileSync,
} from "./read/session-file.js";
export { type StreamSessionOptions, streamSessionRecords, streamSessionRecordsSync } from "./read/stream.js";
export type { ReadStats } from "./read/read-options.js";
export { type ScanHeaderOptions, scanHeader, scanHeaderSync } from "./read/header-scan.js";
export { type ScanTailOptions, type TailScan, scanTail } from "./read/tail-scan.js";
export {
  type LinesAsPi,
  firstValueAsPi,
  keepLinesPiReads,
  readLinesAsPi,
  recordObject,
} from "./read/pi-lines.js";
export { type OpenRegularOptions, openRegularFile, openRegularFileSync } from "./fs/regular-files.js";
export { type PathStat, statPath } from "./fs/path-stat.js";
export { type ByteRange, readByteRanges } from "./read/byte-ranges.js";

// Locking.
export {
  ENV_LOCK_TIMEOUT_MS,
  type HeldLock,
  type LockOptions,
  type LockOwner,
  acquireLock,
  lockPathFor,
  withLock,
} from "./lock/lock.js";

// Writing.
export type { Durability } from "./fs/writer-fs.js";
export {
  type CreateResult,
  type CreateSessionFileOptions,
  createSessionFile,
  ensureSessionDir,
} from "./write/create.js";
export {
  type CompanionKind,
  companionPaths,
  fileTimestamp,
  migrationBackupPath,
} from "./write/companion-names.js";
export { type SessionBackup, backupSessionFile } from "./write/companion-files.js";
export {
  type AppendInput,
  type AppendResult,
  type ForeignEntries,
  SessionWriter,
  type SessionWriterOptions,
} from "./write/appender.js";
export { type RepairOptions, type TornTailRepair, repairTornTail } from "./write/torn-tail.js";
export { type RewriteOptions, type RewriteResult, rewriteSessionFile } from "./write/rewrite.js";
export { type RemoveDeadTempFilesOptions, removeDeadTempFiles } from "./write/temp-files.js";

// Removing.
export { type RemoveSessionOptions, type RemoveSessionResult, removeSession } from "./remove/remove.js";

// Listing.
export { listAllSessions, listSessionDir, listSessions, readSessionInfo } from "./listing/list.js";
export type {
  ListAllOptions,
  ListOptions,
  ListProgress,
  ListSessionsOptions,
  ListStats,
} from "./listing/options.js";
export { type SessionInfo, sessionInfoFromRecords } from "./listing/info.js";
export { type StoreFile, type StoreFilesOptions, listStoreFiles } from "./listing/store-files.js";
export { type FilesUnderOptions, listSessionFilesUnder } from "./listing/files-under.js";

// Watching.
export { type StoreWatch, type WatchStoreOptions, watchStore } from "./watch/store-watch.js";
export { type FollowEvent, type FollowOptions, followSessionFile } from "./watch/follow.js";
export {
  LazySessionFile,
  ParentKind,
  RoleCode,
  openLazySessionFile,
} from "./read/open-scan.js";
