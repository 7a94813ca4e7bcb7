/**
 * Records that turn one image into another: what a running node applies when
 * its Raft log jumps forward to a snapshot (a follower that fell behind the
 * leader's log start). `MetadataImage.toRecords()` is the snapshot content
 * (the image from empty); `imageDiffRecords(from, to)` is the change from a
 * non-empty image, so the listener sees an ordinary batch and the deltas it
 * publishes (topics deleted/created, partitions changed) stay meaningful.
 *
 * Order: removals first (features to level 0, unregistered brokers, removed
 * topics by id, deleted configs), then every record of `to.toRecords()` that
 * `from` does not already hold (new or changed features, registrations,
 * topics, partitions, configs) — in toRecords' order, so a topic comes before
 * its partitions and configs. A registration that differs only in `fenced`
 * becomes a Fence/UnfenceBrokerRecord (same broker epoch).
 */
import { ConfigResourceType, type MetadataRecord } from './records.js';
import type { MetadataImage } from './image.js';

function recordKey(r: MetadataRecord): string {
  return JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

export function imageDiffRecords(from: MetadataImage, to: MetadataImage): MetadataRecord[] {
  const out: MetadataRecord[] = [];
  for (const [name] of from.features()) {
    if (to.featureLevel(name) === undefined) out.push({ type: 'FeatureLevelRecord', data: { name, featureLevel: 0 } });
  }
  for (const b of from.brokers()) {
    if (to.broker(b.brokerId) === undefined) out.push({ type: 'UnregisterBrokerRecord', data: { brokerId: b.brokerId, brokerEpoch: b.brokerEpoch } });
  }
  for (const t of from.topics()) {
    if (to.topicById(t.topicId) === undefined) out.push({ type: 'RemoveTopicRecord', data: { topicId: t.topicId } });
  }
  for (const t of from.topics()) {
    // Topic configs go with a removed topic; delete the rest of the keys `to` lacks.
    if (to.topicById(t.topicId) === undefined) continue;
    for (const [name] of from.topicConfigs(t.name)) {
      if (!to.topicConfigs(t.name).has(name)) out.push({ type: 'ConfigRecord', data: { resourceType: ConfigResourceType.Topic, resourceName: t.name, name, value: null } });
    }
  }
  for (const r of from.toRecords()) {
    if (r.type !== 'ConfigRecord' || r.data.resourceType === ConfigResourceType.Topic) continue;
    if (!to.configs(r.data.resourceType, r.data.resourceName).has(r.data.name)) out.push({ type: 'ConfigRecord', data: { ...r.data, value: null } });
  }
  out.push(...from.scramCredentials.removalsTowards(to.scramCredentials));
  out.push(...from.acls.removalsTowards(to.acls));
  out.push(...from.clientQuotas.removalsTowards(to.clientQuotas));
  // A removed topic's configs go with it: a re-created topic of the same name needs them again.
  const removedNames = new Set([...from.topics()].filter((t) => to.topicById(t.topicId) === undefined).map((t) => t.name));
  const held = new Set(
    from
      .toRecords()
      .filter((r) => !(r.type === 'ConfigRecord' && r.data.resourceType === ConfigResourceType.Topic && removedNames.has(r.data.resourceName)))
      .map(recordKey),
  );
  for (const r of to.toRecords()) {
    if (held.has(recordKey(r))) continue;
    if (r.type === 'RegisterBrokerRecord') {
      const before = from.broker(r.data.brokerId);
      if (before !== undefined && before.brokerEpoch === r.data.brokerEpoch && before.fenced !== r.data.fenced) {
        out.push({ type: r.data.fenced ? 'FenceBrokerRecord' : 'UnfenceBrokerRecord', data: { id: r.data.brokerId, epoch: r.data.brokerEpoch } });
        continue;
      }
    }
    out.push(r);
  }
  return out;
}
