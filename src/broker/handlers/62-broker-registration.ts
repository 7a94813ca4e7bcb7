// 62 BrokerRegistration, v0-4 (flexible from v0; v1 isMigratingZkBroker,
// v2 logDirs, v3 previousBrokerEpoch, v4 no wire change). Served on the
// controller listener only (src/broker/lifecycle/listener-apis.ts). Only the
// active controller registers brokers: elsewhere NOT_CONTROLLER, so the
// broker's lifecycle manager tries the next voter. A request naming another
// cluster id gets INCONSISTENT_CLUSTER_ID. previousBrokerEpoch (v3, KIP-966)
// tells a clean restart from an unclean one (then the broker leaves every ISR
// and ELR). Simplifications: features and logDirs are accepted and not used
// (one log dir per node; every node runs the same software).
import { BrokerRegistrationRequest, BrokerRegistrationResponse } from '../../protocol/messages/62-broker-registration.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

export const brokerRegistrationHandler = defineHandler({
  apiKey: 62,
  name: 'BrokerRegistration',
  minVersion: 0,
  maxVersion: 4,
  request: BrokerRegistrationRequest,
  response: BrokerRegistrationResponse,
  async handle(ctx, req) {
    const cluster = ctx.services.cluster;
    if (cluster?.lifecycle == null || !cluster.channel.isLocal()) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, brokerEpoch: -1n };
    if (req.clusterId !== ctx.services.metadata.clusterId) {
      ctx.logger.warn({ brokerId: req.brokerId, clusterId: req.clusterId }, 'a broker of another cluster tried to register');
      return { throttleTimeMs: 0, errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, brokerEpoch: -1n };
    }
    const answer = await cluster.lifecycle.registerBroker({
      brokerId: req.brokerId,
      clusterId: req.clusterId,
      incarnationId: req.incarnationId,
      endpoints: req.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port, securityProtocol: l.securityProtocol })),
      rack: req.rack,
      previousBrokerEpoch: req.previousBrokerEpoch,
    });
    return { throttleTimeMs: 0, errorCode: answer.errorCode, brokerEpoch: answer.errorCode === ErrorCode.NONE ? answer.brokerEpoch : -1n };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, brokerEpoch: -1n }),
});
