// librdkafka 2.0.2 transactions against a broker process:
// - confluent-kafka-python: init_transactions, a committed transaction with
//   send_offsets_to_transaction, an aborted one; read_committed sees the
//   committed records only, read_uncommitted all of them, and the group's
//   offset is the committed transaction's (test/compat/py/transactions_confluent.py);
// - kcat -P with -X transactional.id: the whole input in one committed
//   transaction, read back by a read_committed kcat consumer.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { assertKcatProduceClean, kcatConsumeAll, kcatProduce } from '../../helpers/kcat.js';
import { createTopicsRaw, waitForLeaders } from '../../helpers/raw-kafka.js';
import { uniqueName } from '../../helpers/records.js';
import { runPythonJson } from '../../helpers/run.js';

describe('librdkafka transactions', { timeout: 240_000 }, () => {
  let broker: BrokerProcess;
  let bootstrap: string;

  before(async () => {
    broker = await startBroker({ name: 'txn-librdkafka' });
    bootstrap = `127.0.0.1:${broker.port}`;
  });
  after(async () => {
    await broker?.cleanup();
  });

  async function topic(prefix: string): Promise<string> {
    const name = uniqueName(prefix);
    await createTopicsRaw(broker.port, [{ name, partitions: 1 }]);
    await waitForLeaders(broker.port, [name]);
    return name;
  }

  it('confluent-kafka-python: commit with send_offsets_to_transaction, abort', async () => {
    const name = await topic('txn-ck');
    const r = await runPythonJson<{ committed: string[]; uncommitted: string[]; group_offset: number }>(
      'transactions_confluent.py',
      'run',
      { bootstrap, topic: name, group: uniqueName('txn-ck-group'), transactional_id: uniqueName('txn-ck') },
      { timeoutMs: 180_000 },
    );
    assert.deepEqual(r.committed, ['c1', 'c2']);
    assert.deepEqual(r.uncommitted, ['c1', 'c2', 'x1']);
    assert.equal(r.group_offset, 3, 'the committed transaction\'s offset, not the aborted one\'s');
  });

  it('kcat -X transactional.id: one committed transaction', async () => {
    const name = await topic('txn-kcat');
    const result = await kcatProduce(bootstrap, name, ['k1:v1', 'k2:v2', 'k3:v3'], { partition: 0, config: { 'transactional.id': uniqueName('txn-kcat') } });
    assertKcatProduceClean(result);
    const records = await kcatConsumeAll(bootstrap, name, { partition: 0, config: { 'isolation.level': 'read_committed' } });
    assert.deepEqual(records.map((r) => r.value), ['v1', 'v2', 'v3']);
  });
});
