/**
 * One broker process per test file, with our Admin and a string Producer
 * connected to it: the shared set-up of the Consumer integration suites.
 * Call inside a `describe`: registers `before`/`after` hooks there.
 *
 *   const env = clientFixture('consumer');
 *   test('...', async () => { await env.producer.sendBatch(...); env.broker.bootstrap; });
 */
import { after, before } from 'node:test';
import { Admin, Producer } from '../../src/client/index.js';
import type { BrokerProcess } from './broker-process.js';
import { startGroupBroker } from './groups.js';

export interface ClientFixture {
  readonly broker: BrokerProcess;
  readonly admin: Admin;
  readonly producer: Producer<string, string>;
}

export function clientFixture(name: string): ClientFixture {
  let state: ClientFixture | null = null;
  let broker: BrokerProcess | undefined;
  let admin: Admin | undefined;
  let producer: Producer<string, string> | undefined;
  before(async () => {
    broker = await startGroupBroker(name);
    admin = await Admin.connect({ bootstrap: broker.bootstrap });
    producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: broker.bootstrap }, lingerMs: 0 });
    state = { broker, admin, producer };
  });
  after(async () => {
    await producer?.close().catch(() => undefined);
    await admin?.close().catch(() => undefined);
    await broker?.cleanup();
  });
  const started = (): ClientFixture => {
    if (state === null) throw new Error(`clientFixture(${name}) used before its before() hook ran`);
    return state;
  };
  return {
    get broker() {
      return started().broker;
    },
    get admin() {
      return started().admin;
    },
    get producer() {
      return started().producer;
    },
  };
}
