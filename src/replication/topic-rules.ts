/**
 * The per-topic rules the append path enforces, resolved from the topic's
 * config (the broker caches one object per config version, see
 * src/broker/broker.ts topicConfigs).
 */
export interface TopicRules {
  readonly maxMessageBytes: number;
  readonly segmentBytes: number;
  readonly messageTimestampType: 'CreateTime' | 'LogAppendTime';
  readonly timestampBeforeMaxMs: number;
  readonly timestampAfterMaxMs: number;
  readonly minInsyncReplicas: number;
  /** cleanup.policy includes compact: every record needs a key. */
  readonly compacted: boolean;
  /**
   * mirror.state (exact-mode mirroring, docs/mirror.md): `active` refuses
   * client appends (POLICY_VIOLATION) and is the only state that takes
   * mirror appends (mirror-append.ts); absent = `none`.
   */
  readonly mirrorState?: 'none' | 'active' | 'promoted';
  /**
   * mirror.promoted.offsets: per partition, where a promoted mirror topic's
   * copied log ended. Producers known only from below it were the source
   * cluster's (Partition.appendClientBatch).
   */
  readonly mirrorPromotedOffsets?: ReadonlyMap<number, bigint>;
  /** compression.type: a codec other than `producer` makes Produce recompress batches in another codec. */
  readonly compressionType?: 'uncompressed' | 'zstd' | 'lz4' | 'snappy' | 'gzip' | 'producer';
}
