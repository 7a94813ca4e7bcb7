/**
 * Writes a metadata log the way the single node's former `LocalMetadataLog`
 * did (before issue 6 made every node a Raft voter): an ordinary
 * `__cluster_metadata-0` PartitionLog (default segments, retention off), one
 * uncompressed record batch per append with partitionLeaderEpoch 0, fsynced
 * after each append, no `quorum-state` file and no snapshots. Tests use it to
 * check that such data dirs still open (test/fixtures/legacy-local-metadata-log
 * is a whole broker data dir written by that code).
 */
import { join } from 'node:path';
import { encodeMetadataBatch } from '../../src/controller/metadata/batch.js';
import type { MetadataRecord } from '../../src/controller/metadata/records.js';
import { METADATA_DIR_NAME, METADATA_PARTITION, METADATA_TOPIC } from '../../src/controller/metadata-log.js';
import { DEFAULT_LOG_CONFIG, PartitionLog, type FileSystem } from '../../src/storage/index.js';
import type { Clock } from '../../src/util/clock.js';

/** Appends each element of `batches` as one batch; returns each batch's record offsets [base, last]. */
export function writeLegacyMetadataLog(fs: FileSystem, clock: Clock, dataDir: string, batches: readonly (readonly MetadataRecord[])[]): [bigint, bigint][] {
  const { log } = PartitionLog.open({
    fs,
    clock,
    dir: join(dataDir, METADATA_DIR_NAME),
    topic: METADATA_TOPIC,
    partition: METADATA_PARTITION,
    config: { ...DEFAULT_LOG_CONFIG, retentionMs: -1, retentionBytes: -1 },
  });
  const ranges: [bigint, bigint][] = [];
  try {
    for (const records of batches) {
      const appended = log.append(encodeMetadataBatch(records, { timestampMs: clock.nowMs() }));
      log.flush();
      ranges.push([appended.baseOffset, appended.lastOffset]);
    }
  } finally {
    log.close();
  }
  return ranges;
}
