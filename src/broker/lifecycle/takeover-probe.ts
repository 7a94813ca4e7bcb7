/**
 * Fast failure detection after a controller failover (beyond Kafka).
 *
 * The active controller fences a broker at once when the connection its
 * heartbeats come on is reset (controller-ops.ts). A controller that has just
 * taken over has no such connections yet: KRaft gives every broker a fresh
 * session, so a broker that died together with the old controller (the
 * same process in combined mode, or the same host) keeps its leaderships for
 * a whole `broker.session.timeout.ms`. That was the 10-11 s failover when the
 * leader of a partition was also the active controller.
 *
 * So on taking over, the controller dials every unfenced broker's
 * registered listeners once. A broker whose every listener refuses the
 * connection (ECONNREFUSED: nothing listens on that port, the process is
 * gone) is fenced at once, exactly as if its heartbeat connection had been
 * reset. Anything else (the connection opens, times out, or fails another
 * way) proves nothing and leaves the broker to its session: a SIGSTOPped
 * process still completes TCP handshakes from its listen backlog, and a
 * network partition drops packets rather than refusing them, so both still
 * go by the session timeout. A wrong verdict costs availability only: a
 * live broker that was fenced heartbeats again and is unfenced.
 */
import { createConnection } from 'node:net';
import type { BrokerRegistration } from '../../controller/metadata/image.js';

/** What dialling one listener showed. */
export type DialOutcome = 'refused' | 'open' | 'inconclusive';

/** Dials host:port once; never rejects. */
export type Dial = (host: string, port: number, timeoutMs: number) => Promise<DialOutcome>;

/** How long one dial may take before it counts as inconclusive. */
export const TAKEOVER_DIAL_TIMEOUT_MS = 1_000;

/** A TCP connect (no bytes sent): refused, open (closed again at once), or inconclusive. */
export const tcpDial: Dial = (host, port, timeoutMs) =>
  new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (outcome: DialOutcome): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done('inconclusive'), timeoutMs);
    socket.once('connect', () => done('open'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'refused' : 'inconclusive'));
  });

/**
 * The registrations among `brokers` (other than `selfId`, unfenced, with at
 * least one listener) whose every listener refused a connection.
 */
export async function deadBrokers(brokers: Iterable<BrokerRegistration>, selfId: number, dial: Dial, timeoutMs = TAKEOVER_DIAL_TIMEOUT_MS): Promise<BrokerRegistration[]> {
  const candidates = [...brokers].filter((b) => b.brokerId !== selfId && !b.fenced && b.endPoints.length > 0);
  const verdicts = await Promise.all(
    candidates.map(async (b) => {
      const outcomes = await Promise.all(b.endPoints.map((e) => dial(e.host, e.port, timeoutMs)));
      return outcomes.every((o) => o === 'refused');
    }),
  );
  return candidates.filter((_, i) => verdicts[i] === true);
}
