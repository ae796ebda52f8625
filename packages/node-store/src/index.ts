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
  INVALID_SESSION_ID_MESSAGE,
  type ParsedSessionFileName,
  SESSION_ID_PATTERN,
  type SessionsRoot,
  type SessionsRootOptions,
  UnsafePathError,
  assertValidSessionId,
  encodeCwd,
  expandTilde,
  getAgentDir,
  getDefaultSessionsRoot,
  getSessionsRoot,
  isInside,
  isValidSessionId,
  parseSessionFileName,
  pathsEqual,
  readSessionDirSetting,
  resolvePiPath,
  resolveSessionsRoot,
  safeJoin,
  sessionDirForCwd,
  sessionFileName,
  sessionFilePath,
} from "./layout/layout.js";
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
  READ_CHUNK_SIZE,
  type OpenRegularOptions,
  type ReadSessionOptions,
  type ReadStats,
  type ScanHeaderOptions,
  type ScanTailOptions,
  type SessionFileContents,
  type StreamSessionOptions,
  type TailScan,
  type TornTail,
  messageActivityTime,
  openRegularFile,
  openRegularFileSync,
  rawRecordValue,
  readSessionFile,
  readSessionFileSync,
  scanHeader,
  scanHeaderSync,
  scanTail,
  sessionInfoName,
  streamSessionRecords,
  streamSessionRecordsSync,
} from "./read/read.js";
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
  type CreateResult,
  type CreateSessionFileOptions,
  type Durability,
  type ForeignEntries,
  type RemoveDeadTempFilesOptions,
  type RepairOptions,
  type RewriteOptions,
  type RewriteResult,
  type SessionWriterOptions,
  SessionWriter,
  type TornTailRepair,
  type WriterFs,
  createSessionFile,
  encodeEntries,
  fsyncDir,
  openAppender,
  removeDeadTempFiles,
  repairTornTail,
  rewriteSessionFile,
} from "./write/write.js";
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
  listAllSessions,
  listSessionDir,
  listSessions,
  newListStats,
  readSessionInfo,
} from "./listing/list.js";
export { defaultCacheDir } from "./listing/cache.js";
export {
  type StoreFile,
  type StoreFilesOptions,
  listStoreFiles,
  readFileBytes,
} from "./listing/store-files.js";
