/**
 * `tributary mirror promote TOPIC`: turns an exact-mode mirror topic into an
 * ordinary, writable topic, for when its source cluster is gone (Confluent
 * Cluster Linking's "promote"/"failover" of a mirror topic, in our words).
 *
 * 1. mirror.state goes from `active` to `promoted` (a topic config, applied
 *    by every broker from the metadata log): Produce is accepted from then
 *    on, new records continuing after the mirrored log end, and MirrorAppend
 *    is refused, so a mirror still running stops copying into the topic
 *    (its copier ends quietly on a promoted topic). In the same change,
 *    mirror.promoted.offsets records where each partition's copy ended
 *    (read before, while nothing can write): producers known only from
 *    below it were the source cluster's, whose ids this cluster may hand out
 *    again, so they no longer fence or dedupe this cluster's producers
 *    (Partition.appendClientBatch). Stop the mirror first: a copy landing
 *    between the read and the change would count as this cluster's.
 * 2. Transactions copied open (their producer was mid-transaction on the
 *    source when it was lost) would hold the last stable offset back forever,
 *    since their coordinator is on the source: each gets an ABORT marker
 *    (WriteTxnMarkers, as `kafka-transactions.sh abort` does), so
 *    read_committed consumers move on.
 *
 * Promoting a promoted topic changes nothing; promoting a topic that is no
 * mirror topic is refused.
 */
import { Admin, Cluster, abortTransaction, describeProducers, type ClusterOptions } from '../client/index.js';

export class MirrorPromoteError extends Error {
  override readonly name = 'MirrorPromoteError';
}

export interface PromoteResult {
  readonly topic: string;
  /** mirror.promoted.offsets as set (`partition:offset,...`); empty when nothing was done. */
  readonly promotedOffsets: string;
  /** The mirror.state it had: `active`, or `promoted` when it already was (nothing done). */
  readonly previousState: string;
  /** Open copied transactions that got an ABORT marker, as `partition:producerId`. */
  readonly abortedTransactions: readonly string[];
}

/** Promotes `topic` on the cluster at `bootstrap`; `connection` adds client options (SASL, TLS, timeouts). */
export async function promoteMirrorTopic(bootstrap: string, topic: string, connection: Omit<ClusterOptions, 'bootstrap'> = {}): Promise<PromoteResult> {
  const options = { clientId: 'tributary-mirror-promote', ...connection, bootstrap };
  const admin = await Admin.connect(options);
  const cluster = await Cluster.connect(options);
  try {
    const described = await admin.describeTopicConfigs([topic]);
    const entries = described?.get(topic);
    if (entries === undefined) throw new MirrorPromoteError(`topic ${topic} does not exist at ${bootstrap}`);
    const state = entries.find((e) => e.name === 'mirror.state')?.value ?? 'none';
    if (state === 'promoted') return { topic, previousState: state, promotedOffsets: '', abortedTransactions: [] };
    if (state !== 'active') throw new MirrorPromoteError(`${topic} is not a mirror topic (mirror.state=${state}): there is nothing to promote`);
    // Read while the topic is still read-only (the mirror stopped, no producer can write): where the copy ends.
    const partitions = (await admin.describeTopics([topic]))[0]?.partitions.map((p) => p.partition) ?? [];
    const ends = await admin.listOffsets(partitions.map((partition) => ({ topic, partition, spec: 'latest' as const })));
    const promotedOffsets = ends.filter((e) => e.error === null).map((e) => `${e.partition}:${e.offset}`).join(',');
    await admin.incrementalAlterConfigs({ type: 'topic', name: topic }, [
      { name: 'mirror.state', value: 'promoted', op: 'set' },
      { name: 'mirror.promoted.offsets', value: promotedOffsets, op: 'set' },
    ]);
    const aborted: string[] = [];
    for (const p of await describeProducers(cluster, topic)) {
      if (p.currentTxnStartOffset < 0n) continue;
      await abortTransaction(cluster, { topic, partition: p.partition, producerId: p.producerId, producerEpoch: p.producerEpoch, coordinatorEpoch: p.coordinatorEpoch });
      aborted.push(`${p.partition}:${p.producerId}`);
    }
    return { topic, previousState: state, promotedOffsets, abortedTransactions: aborted };
  } finally {
    await Promise.all([admin.close(), cluster.close()]);
  }
}
