/**
 * `tributary mirror promote TOPIC`: turns an exact-mode mirror topic into an
 * ordinary, writable topic, for when its source cluster is gone (Confluent
 * Cluster Linking's "promote"/"failover" of a mirror topic, in our words).
 *
 * 1. mirror.state goes from `active` to `promoted` (a topic config, applied
 *    by every broker from the metadata log): Produce is accepted from then
 *    on, new records continuing after the mirrored log end, and MirrorAppend
 *    is refused, so a mirror still running stops copying into the topic
 *    (its copier ends quietly on a promoted topic).
 * 2. Transactions copied open (their producer was mid-transaction on the
 *    source when it was lost) would hold the last stable offset back forever,
 *    since their coordinator is on the source: each gets an ABORT marker
 *    (WriteTxnMarkers, as `kafka-transactions.sh abort` does), so
 *    read_committed consumers move on.
 *
 * Promoting a promoted topic changes nothing; promoting a topic that is no
 * mirror topic is refused.
 */
import { Admin, Cluster, abortTransaction, describeProducers } from '../client/index.js';

export class MirrorPromoteError extends Error {
  override readonly name = 'MirrorPromoteError';
}

export interface PromoteResult {
  readonly topic: string;
  /** The mirror.state it had: `active`, or `promoted` when it already was (nothing done). */
  readonly previousState: string;
  /** Open copied transactions that got an ABORT marker, as `partition:producerId`. */
  readonly abortedTransactions: readonly string[];
}

export async function promoteMirrorTopic(bootstrap: string, topic: string): Promise<PromoteResult> {
  const admin = await Admin.connect({ bootstrap, clientId: 'tributary-mirror-promote' });
  const cluster = await Cluster.connect({ bootstrap, clientId: 'tributary-mirror-promote' });
  try {
    const described = await admin.describeTopicConfigs([topic]);
    const entries = described?.get(topic);
    if (entries === undefined) throw new MirrorPromoteError(`topic ${topic} does not exist at ${bootstrap}`);
    const state = entries.find((e) => e.name === 'mirror.state')?.value ?? 'none';
    if (state === 'promoted') return { topic, previousState: state, abortedTransactions: [] };
    if (state !== 'active') throw new MirrorPromoteError(`${topic} is not a mirror topic (mirror.state=${state}): there is nothing to promote`);
    await admin.incrementalAlterConfigs({ type: 'topic', name: topic }, [{ name: 'mirror.state', value: 'promoted', op: 'set' }]);
    const aborted: string[] = [];
    for (const p of await describeProducers(cluster, topic)) {
      if (p.currentTxnStartOffset < 0n) continue;
      await abortTransaction(cluster, { topic, partition: p.partition, producerId: p.producerId, producerEpoch: p.producerEpoch, coordinatorEpoch: p.coordinatorEpoch });
      aborted.push(`${p.partition}:${p.producerId}`);
    }
    return { topic, previousState: state, abortedTransactions: aborted };
  } finally {
    await Promise.all([admin.close(), cluster.close()]);
  }
}
