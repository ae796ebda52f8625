/**
 * @pi-session/node-store: everything of pi-session that touches the filesystem.
 *
 * Layout (agent dir, sessions root, per-cwd directories, file names), streaming reads, header
 * and tail scans, safe appends under a cross-process lock, torn-tail repair, atomic rewrites,
 * removal to the trash, and listing with a metadata cache. See the README for the guarantees.
 */
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
  INVALID_SESSION_ID_MESSAGE,
  type ParsedSessionFileName,
  SESSION_ID_PATTERN,
  assertValidSessionId,
  isValidSessionId,
  parseSessionFileName,
  sessionFileName,
  sessionFilePath,
} from "./layout/file-names.js";
export {
  UnsafePathError,
  expandTilde,
  isInside,
  pathsEqual,
  resolvePiPath,
  safeJoin,
} from "./layout/pi-paths.js";
export {
  SessionFileChangedError,
  SessionFileExistsError,
  SessionFileNotFoundError,
  SessionFileNotRegularError,
  SessionHeaderScanLimitError,
  SessionLockTimeoutError,
} from "./errors.js";
export {
  HEADER_SCAN_BLOCK_SIZE,
  HEADER_SCAN_MAX_BYTES,
  type ScanHeaderOptions,
  scanHeader,
  scanHeaderSync,
} from "./read/header-scan.js";
export { READ_CHUNK_SIZE, type ReadStats } from "./read/read-options.js";
export { type OpenRegularOptions, openRegularFile, openRegularFileSync } from "./fs/regular-files.js";
export {
  type ReadSessionOptions,
  type SessionFileContents,
  readSessionFile,
  readSessionFileSync,
} from "./read/session-file.js";
export { type ScanTailOptions, type TailScan, scanTail } from "./read/tail-scan.js";
export { type StreamSessionOptions, streamSessionRecords, streamSessionRecordsSync } from "./read/stream.js";
export type { TornTail } from "./read/codec.js";
export { messageActivityTime, sessionInfoName } from "./read/entry-fields.js";
export { rawRecordValue } from "@pi-session/format";
export {
  ENV_LOCK_TIMEOUT_MS,
  type HeldLock,
  type LockOptions,
  type LockOwner,
  acquireLock,
  lockPathFor,
  withLock,
} from "./lock/lock.js";
export {
  type AppendInput,
  type AppendResult,
  type ForeignEntries,
  type SessionWriterOptions,
  SessionWriter,
  openAppender,
} from "./write/appender.js";
export { type CreateResult, type CreateSessionFileOptions, createSessionFile } from "./write/create.js";
export { type Durability, type WriterFs, fsyncDir } from "./fs/writer-fs.js";
export { type RemoveDeadTempFilesOptions, removeDeadTempFiles } from "./write/temp-files.js";
export { type RepairOptions, type TornTailRepair, repairTornTail } from "./write/torn-tail.js";
export { type RewriteOptions, type RewriteResult, rewriteSessionFile } from "./write/rewrite.js";
export { encodeEntries } from "./write/line-bytes.js";
export { type RemoveSessionOptions, type RemoveSessionResult, removeSession } from "./remove/remove.js";
export {
  type LinesAsPi,
  firstValueAsPi,
  keepLinesPiReads,
  readLinesAsPi,
  recordObject,
} from "./read/pi-lines.js";
export { type InfoState, type SessionInfo, sessionInfoFromRecords } from "./listing/info.js";
export {
  type ListAllOptions,
  type ListOptions,
  type ListProgress,
  type ListSessionsOptions,
  type ListStats,
  newListStats,
} from "./listing/options.js";
export { listAllSessions, listSessionDir, listSessions, readSessionInfo } from "./listing/list.js";
export { defaultCacheDir } from "./listing/cache-dir.js";
export {
  type StoreFile,
  type StoreFilesOptions,
  listStoreFiles,
  readFileBytes,
} from "./listing/store-files.js";
