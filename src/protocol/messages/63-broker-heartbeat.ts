// 63 BrokerHeartbeat (KIP-631), controller listener only. Flexible from v0.
// v1: offlineLogDirs (tag 0). A registered broker sends one every
// broker.heartbeat.interval.ms; the answer says whether it has caught up with
// the metadata log, whether it is fenced, and (after wantShutDown) whether it
// may stop (controlled shutdown done).
import { array, field, request, response, type Infer } from '../schema.js';

export const BrokerHeartbeatRequest = request(63, { versions: '0-1', flexible: '0+', name: 'BrokerHeartbeatRequest' }, [
  field('brokerId', 'int32'),
  field('brokerEpoch', 'int64', { default: -1n }),
  field('currentMetadataOffset', 'int64'),
  field('wantFence', 'bool'),
  field('wantShutDown', 'bool'),
  field('offlineLogDirs', array('uuid'), { versions: '1+', tag: 0, taggedVersions: '1+', default: [] }),
]);
export type BrokerHeartbeatRequest = Infer<typeof BrokerHeartbeatRequest>;

export const BrokerHeartbeatResponse = response(63, { versions: '0-1', flexible: '0+', name: 'BrokerHeartbeatResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('isCaughtUp', 'bool', { default: false }),
  field('isFenced', 'bool', { default: true }),
  field('shouldShutDown', 'bool'),
]);
export type BrokerHeartbeatResponse = Infer<typeof BrokerHeartbeatResponse>;
