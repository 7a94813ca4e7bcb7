/**
 * Which APIs each kind of listener serves (as Kafka's `"listeners"` in its
 * message definitions). ApiVersions on a connection advertises exactly the
 * set of the listener it came in on.
 *
 * - Controller listeners (`controller.listener.names`): the Raft APIs, broker
 *   lifecycle (BrokerRegistration, BrokerHeartbeat), AlterPartition, AllocateProducerIds,
 *   DescribeQuorum, the
 *   metadata-changing admin APIs (forwarded here by other nodes), and
 *   ApiVersions.
 * - Broker listeners: every client API; never the Raft or lifecycle ones.
 */
import type { AnyHandler } from '../handler.js';
import { forwardToController } from '../controller-channel.js';

/** Raft and broker-lifecycle APIs: controller listeners only. */
export const CONTROLLER_ONLY_API_KEYS: ReadonlySet<number> = new Set([
  52, // Vote
  53, // BeginQuorumEpoch
  54, // EndQuorumEpoch
  56, // AlterPartition (partition leaders to the active controller)
  59, // FetchSnapshot
  62, // BrokerRegistration
  63, // BrokerHeartbeat
  67, // AllocateProducerIds
]);

/** Everything a controller listener answers. Fetch (1) serves the metadata log's replication there. */
export const CONTROLLER_LISTENER_API_KEYS: ReadonlySet<number> = new Set([
  ...CONTROLLER_ONLY_API_KEYS,
  1, // Fetch (of __cluster_metadata-0, by followers and observers)
  17, // SaslHandshake (a SASL controller listener; docs/security.md)
  18, // ApiVersions
  19, // CreateTopics
  20, // DeleteTopics
  30, // CreateAcls
  31, // DeleteAcls
  33, // AlterConfigs
  36, // SaslAuthenticate
  37, // CreatePartitions
  43, // ElectLeaders
  44, // IncrementalAlterConfigs
  45, // AlterPartitionReassignments
  49, // AlterClientQuotas
  51, // AlterUserScramCredentials
  55, // DescribeQuorum
]);

export type ListenerKind = 'broker' | 'controller';

/** APIs a broker listener forwards to the active controller when this node is not it (Kafka brokers forward DescribeQuorum). */
const FORWARDED_ON_BROKER_LISTENERS: ReadonlySet<number> = new Set([55]);

/** The handlers a listener serves (every node runs a Raft metadata quorum, of one voter when alone). */
export function handlersForListener(all: readonly AnyHandler[], kind: ListenerKind): AnyHandler[] {
  if (kind === 'controller') return all.filter((h) => CONTROLLER_LISTENER_API_KEYS.has(h.apiKey));
  return all
    .filter((h) => !CONTROLLER_ONLY_API_KEYS.has(h.apiKey))
    .map((h) => (FORWARDED_ON_BROKER_LISTENERS.has(h.apiKey) ? forwarding(h) : h));
}

/** The same handler, run by the active controller: forwarded there unless this node is it. */
function forwarding(h: AnyHandler): AnyHandler {
  return {
    ...h,
    handle: async (ctx, req) => (await forwardToController(ctx, { request: h.request, response: h.response }, req, (code) => h.errorResponse(req, code, ctx))) ?? h.handle(ctx, req),
  };
}
