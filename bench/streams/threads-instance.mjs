/**
 * One instance of the stateless bench topology, as its own process (see
 * threads.mjs): reads INPUT, parses each JSON value, keeps the even ids,
 * re-serializes an enriched value, writes OUTPUT. Closes on SIGTERM.
 */
import { KafkaStreams, Serdes, StreamsBuilder } from '../../dist/src/streams/index.js';

const builder = new StreamsBuilder();
builder
  .stream(process.env.INPUT, { keySerde: Serdes.String(), valueSerde: Serdes.Json() })
  .filter((_k, v) => v.id % 2 === 0)
  .mapValues((v) => ({ ...v, words: v.text.split(' ').length, upper: v.text.toUpperCase() }))
  .to(process.env.OUTPUT, { keySerde: Serdes.String(), valueSerde: Serdes.Json() });
const streams = new KafkaStreams(builder.build(), {
  applicationId: process.env.APP_ID,
  bootstrapServers: process.env.BOOTSTRAP,
  stateDir: process.env.STATE_DIR,
  commitIntervalMs: 1000,
  logger: () => {},
});
process.on('SIGTERM', () => void streams.close().then(() => process.exit(0)));
await streams.start();
process.stdout.write('running\n');
