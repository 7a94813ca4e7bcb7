// 62 BrokerRegistration (KIP-631), controller listener only. Flexible from v0.
// v1: isMigratingZkBroker. v2: logDirs (KIP-858). v3: previousBrokerEpoch
// (KIP-966). v4: no wire change (features with minSupportedVersion 0 may be
// sent). A broker sends it to the active controller once at start-up (and
// again after a NOT_CONTROLLER / fencing by a new incarnation); the response
// carries the broker epoch its heartbeats must name.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const BrokerRegistrationRequest = request(62, { versions: '0-4', flexible: '0+', name: 'BrokerRegistrationRequest' }, [
  field('brokerId', 'int32'),
  field('clusterId', 'string'),
  field('incarnationId', 'uuid'),
  field(
    'listeners',
    array(
      struct([
        field('name', 'string'),
        field('host', 'string'),
        field('port', 'uint16'),
        field('securityProtocol', 'int16'),
      ]),
    ),
  ),
  field('features', array(struct([field('name', 'string'), field('minSupportedVersion', 'int16'), field('maxSupportedVersion', 'int16')]))),
  field('rack', 'nullableString', { default: null }),
  field('isMigratingZkBroker', 'bool', { versions: '1+', default: false }),
  field('logDirs', array('uuid'), { versions: '2+', default: [] }),
  field('previousBrokerEpoch', 'int64', { versions: '3+', default: -1n }),
]);
export type BrokerRegistrationRequest = Infer<typeof BrokerRegistrationRequest>;

export const BrokerRegistrationResponse = response(62, { versions: '0-4', flexible: '0+', name: 'BrokerRegistrationResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('brokerEpoch', 'int64', { default: -1n }),
]);
export type BrokerRegistrationResponse = Infer<typeof BrokerRegistrationResponse>;
