/** Public surface of the storage layer. */
export type { FileHandle, FileSystem } from './fs.js';
export { NodeFileSystem, readRange } from './fs.js';
export { MemoryFileSystem } from './memory-fs.js';
export { DEFAULT_LOG_CONFIG, FLUSH_NEVER, SEGMENT_BYTES_MAX, validateLogConfig, type LogConfig } from './config.js';
export { StorageError, type StorageErrorCode } from './errors.js';
export type { RecoveryReport } from './log-loader.js';
export type { SegmentRecovery } from './segment.js';
export {
  PartitionLog,
  type AppendResult,
  type ReadOptions,
  type ReadResult,
  type RetentionResult,
  type SegmentInfo,
  type TimestampOffset,
} from './partition-log.js';
export type { PartitionLogOptions } from './partition-log-state.js';
export {
  LogManager,
  partitionDirName,
  parsePartitionDirName,
  type LogManagerOptions,
  type LogManagerStartup,
  type TickResult,
} from './log-manager.js';
export { formatCheckpoint, parseCheckpoint, type CheckpointEntry } from './checkpoint.js';
export {
  LEADER_EPOCH_CHECKPOINT,
  formatLeaderEpochCheckpoint,
  parseLeaderEpochCheckpoint,
  type EpochEntry,
} from './leader-epoch-checkpoint.js';
