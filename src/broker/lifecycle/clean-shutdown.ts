/**
 * The clean-shutdown marker (KIP-966, as Kafka 3.7+'s `.kafka_cleanshutdown`):
 * a broker that stopped cleanly (logs flushed and closed) leaves
 * `<dataDir>/.tributary_cleanshutdown` holding the broker epoch it had. At
 * the next start it takes the marker (reads and removes it) and names that
 * epoch as BrokerRegistration's previousBrokerEpoch; without a marker (a
 * crash, kill -9, power loss) it sends -1 and the controller treats the
 * restart as unclean: the broker may have lost its unflushed tail, so it
 * leaves every ISR and ELR. The marker is removed at start so a crash later
 * in the same run is never mistaken for a clean stop.
 */
import type { FileSystem } from '../../storage/fs.js';

export const CLEAN_SHUTDOWN_FILE = '.tributary_cleanshutdown';

const markerPath = (dataDir: string): string => `${dataDir.replace(/\/+$/, '')}/${CLEAN_SHUTDOWN_FILE}`;

/** The broker epoch of the last clean shutdown, removing the marker; -1n when there is none or it is damaged. */
export function takeCleanShutdownEpoch(fs: FileSystem, dataDir: string): bigint {
  const path = markerPath(dataDir);
  if (!fs.exists(path)) return -1n;
  let epoch = -1n;
  try {
    const parsed = JSON.parse(fs.readFile(path).toString('utf8')) as { version?: unknown; brokerEpoch?: unknown };
    if (parsed.version === 0 && typeof parsed.brokerEpoch === 'string' && /^\d+$/.test(parsed.brokerEpoch)) epoch = BigInt(parsed.brokerEpoch);
  } catch {
    epoch = -1n; // a damaged marker proves nothing: treat the stop as unclean
  }
  fs.unlink(path);
  return epoch;
}

/** Written last in a clean stop (after the logs are closed). */
export function writeCleanShutdownMarker(fs: FileSystem, dataDir: string, brokerEpoch: bigint): void {
  fs.writeFileAtomic(markerPath(dataDir), Buffer.from(JSON.stringify({ version: 0, brokerEpoch: String(brokerEpoch) }), 'utf8'));
}
