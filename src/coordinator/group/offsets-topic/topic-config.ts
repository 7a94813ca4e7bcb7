/**
 * How __consumer_offsets is created: the lead passes these to CreateTopics
 * (with offsets.topic.num.partitions and offsets.topic.replication.factor)
 * the first time the coordinator needs the topic, as Kafka's
 * GroupCoordinator.offsetsTopicConfigs does.
 */

export const OFFSETS_TOPIC_NAME = '__consumer_offsets';
/** offsets.topic.segment.bytes default (100 MiB): small segments so compaction can clean them soon. */
export const OFFSETS_TOPIC_SEGMENT_BYTES_DEFAULT = 104_857_600;

export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string;
}

/**
 * cleanup.policy=compact (the latest record per key is all that matters),
 * compression.type=producer (keep the batches as the coordinator wrote them,
 * compressed with offsets.topic.compression.codec or not), segment.bytes.
 */
export function offsetsTopicConfigs(segmentBytes: number = OFFSETS_TOPIC_SEGMENT_BYTES_DEFAULT): readonly TopicConfigEntry[] {
  if (!Number.isInteger(segmentBytes) || segmentBytes < 14) throw new RangeError(`segment.bytes ${segmentBytes} must be an integer >= 14`);
  return [
    { name: 'cleanup.policy', value: 'compact' },
    { name: 'compression.type', value: 'producer' },
    { name: 'segment.bytes', value: String(segmentBytes) },
  ];
}
