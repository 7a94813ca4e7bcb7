/**
 * Where admin requests that change metadata go (CreateTopics, DeleteTopics,
 * CreatePartitions, AlterConfigs, IncrementalAlterConfigs): to the local
 * QuorumController when this node is the active controller, else forwarded
 * as-is (same API version, same body) to the active controller's controller
 * listener, whose answer goes back to the client unchanged. Kafka wraps
 * forwarded requests in an Envelope (58) to carry the client's principal;
 * we send the request itself, since the authorizer is allow-all (docs/architecture.md:
 * the principal travels in the envelope once ACLs land).
 *
 * While no controller is known (an election), or it does not answer, or it
 * answers NOT_CONTROLLER (it lost leadership meanwhile), the request waits
 * and is sent again, for up to FORWARD_WAIT_MS, as Kafka's forwarding
 * manager does: clients do not see the election (kafkajs, for one, gives up
 * on a per-topic NOT_CONTROLLER instead of retrying). After that the answer
 * is NOT_CONTROLLER. A retried CreateTopics whose first attempt committed
 * answers TOPIC_ALREADY_EXISTS, as in Kafka.
 * The broker's own metadata changes (__consumer_offsets, topics auto-created
 * by Metadata, producer id blocks) take the same way with the same wait
 * (routeMetadataChanges), as CreateTopics and AllocateProducerIds requests.
 * A request that arrived on a controller listener is never forwarded again
 * (no loops while leadership moves): it runs locally and the local
 * controller answers NOT_CONTROLLER if it is not the leader.
 */
import type { Logger } from 'pino';
import type { ApiPair } from '../net/connection.js';
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../protocol/messages/19-create-topics.js';
import { AllocateProducerIdsRequest, AllocateProducerIdsResponse } from '../protocol/messages/67-allocate-producer-ids.js';
import type { CreatedTopic, MetadataService, NewTopicSpec } from './metadata-service.js';
import type { Infer, Input, MessageSchema } from '../protocol/schema.js';
import type { ControllerRpc } from './lifecycle/controller-rpc.js';
import type { RequestContext } from './request-context.js';

/** One forwarded request waits this long for the active controller's answer. */
export const FORWARD_TIMEOUT_MS = 5_000;
/** How long a request may wait for an active controller (elections) before NOT_CONTROLLER. */
export const FORWARD_WAIT_MS = 8_000;
/** Pause between attempts while no controller is known. */
const FORWARD_RETRY_MS = 50;

export interface ControllerChannel {
  /** This node is the active controller: run admin requests here. */
  isLocal(): boolean;
  /** The active controller's node id as this node knows it; -1 when unknown. */
  activeControllerId(): number;
  /** Whether a listener name is one of controller.listener.names. */
  isControllerListener(listenerName: string): boolean;
  /** Sends a request to the active controller; throws when none is known or it does not answer. */
  forward<Req extends MessageSchema, Res extends MessageSchema>(api: ApiPair<Req, Res>, version: number, body: Input<Req>): Promise<Infer<Res>>;
}

export class NoActiveControllerError extends Error {
  readonly code = 'ERR_TRIB_NO_ACTIVE_CONTROLLER';
  constructor() {
    super('no active controller is known yet (election in progress?)');
    this.name = 'NoActiveControllerError';
  }
}

/** The channel of a node that is alone (single-node default): always local. */
export const LOCAL_CONTROLLER_CHANNEL = (nodeId: number): ControllerChannel => ({
  isLocal: () => true,
  activeControllerId: () => nodeId,
  isControllerListener: () => false,
  forward: () => Promise.reject(new Error('a single node never forwards')),
});

export interface RemoteChannelOptions {
  readonly nodeId: number;
  readonly controllerListenerNames: readonly string[];
  readonly rpc: ControllerRpc;
  /** The Raft leader this node knows of (voter or observer), or null. */
  readonly leaderId: () => number | null;
  /** True when this node is a controller and its QuorumController is active (Raft leader). */
  readonly isActiveHere: () => boolean;
}

export function remoteControllerChannel(opts: RemoteChannelOptions): ControllerChannel {
  const names = new Set(opts.controllerListenerNames);
  return {
    isLocal: opts.isActiveHere,
    activeControllerId: () => opts.leaderId() ?? -1,
    isControllerListener: (name) => names.has(name),
    forward: (api, version, body) => {
      const leader = opts.leaderId();
      if (leader === null || leader === opts.nodeId) return Promise.reject(new NoActiveControllerError());
      return opts.rpc.send(leader, api, version, body, FORWARD_TIMEOUT_MS);
    },
  };
}

/**
 * For the admin handlers: null when the request runs here (the handler goes
 * on with the local controller), else the active controller's response, or
 * `errorResponse(NOT_CONTROLLER)` when it cannot be reached.
 */
export async function forwardToController<Req extends MessageSchema, Res extends MessageSchema>(
  ctx: RequestContext,
  api: ApiPair<Req, Res>,
  request: Infer<Req>,
  errorResponse: (errorCode: number) => Input<Res>,
): Promise<Input<Res> | null> {
  const channel = ctx.services.cluster?.channel;
  if (channel === undefined || channel.isControllerListener(ctx.listenerName)) return null;
  const outcome = await untilControllerAnswers(
    channel,
    () => channel.forward(api, ctx.apiVersion, request as Input<Req>),
    (answer) => mentions(answer, ErrorCode.NOT_CONTROLLER),
    (err, attempt) => ctx.logger.debug({ err, apiKey: ctx.apiKey, attempt }, 'forwarding to the active controller failed'),
  );
  if (outcome.local) return null;
  if (outcome.answer === null) {
    ctx.logger.debug({ apiKey: ctx.apiKey }, 'no active controller answered in time; answering NOT_CONTROLLER');
    return errorResponse(ErrorCode.NOT_CONTROLLER);
  }
  return outcome.answer as Input<Res>;
}

/** How a wait for the active controller ended: this node became it, or its (last) answer; null when none came. */
export type ControllerOutcome<T> = { readonly local: true } | { readonly local: false; readonly answer: T | null };

/**
 * The wait-and-retry loop every request to the active controller shares:
 * runs `send` until it answers something other than NOT_CONTROLLER
 * (`notController`), for up to FORWARD_WAIT_MS while no controller is known,
 * it does not answer, or it lost leadership meanwhile. Stops as soon as this
 * node is the active controller (the caller then runs the request locally).
 */
export async function untilControllerAnswers<T>(
  channel: ControllerChannel,
  send: () => Promise<T>,
  notController: (answer: T) => boolean,
  onFailure: (err: unknown, attempt: number) => void,
): Promise<ControllerOutcome<T>> {
  const deadline = performance.now() + FORWARD_WAIT_MS;
  let answer: T | null = null;
  for (let attempt = 1; ; attempt++) {
    if (channel.isLocal()) return { local: true };
    try {
      answer = await send();
      if (!notController(answer)) return { local: false, answer };
    } catch (err) {
      onFailure(err, attempt);
    }
    if (performance.now() >= deadline) return { local: false, answer };
    await new Promise<void>((resolve) => setTimeout(resolve, FORWARD_RETRY_MS));
  }
}

/**
 * The metadata service of a cluster node whose own metadata changes reach
 * the active controller: topics the broker creates itself (__consumer_offsets
 * on the first FindCoordinator, Metadata auto-creation) go as CreateTopics,
 * producer id blocks (InitProducerId) as AllocateProducerIds (67), to the
 * active controller's controller listener when it is another node, with the
 * same wait while electing as forwarded client requests. Everything else,
 * and every call while this node is the active controller, is `local`'s.
 */
export function routeMetadataChanges(local: MetadataService, channel: ControllerChannel, nodeId: number, logger: Logger): MetadataService {
  const onFailure = (what: string) => (err: unknown, attempt: number) => logger.debug({ err, attempt }, `${what} at the active controller failed`);
  const createTopics = async (topics: readonly NewTopicSpec[], validateOnly: boolean): Promise<CreatedTopic[]> => {
    const outcome = await untilControllerAnswers(
      channel,
      () =>
        channel.forward(CREATE_TOPICS, CREATE_TOPICS_VERSION, {
          topics: topics.map((t) => ({ ...t, assignments: t.assignments.map((a) => ({ partitionIndex: a.partitionIndex, brokerIds: [...a.brokerIds] })), configs: [...t.configs] })),
          timeoutMs: FORWARD_TIMEOUT_MS,
          validateOnly,
        }),
      (answer) => answer.topics.some((t) => t.errorCode === ErrorCode.NOT_CONTROLLER),
      onFailure('CreateTopics'),
    );
    if (outcome.local) return local.createTopics(topics, validateOnly);
    const byName = new Map((outcome.answer?.topics ?? []).map((t) => [t.name, t]));
    if (!validateOnly) await localImageHas([...byName.values()].filter((t) => t.errorCode === ErrorCode.NONE).map((t) => t.name));
    return topics.map((spec): CreatedTopic => {
      const t = byName.get(spec.name);
      if (t === undefined) {
        return { name: spec.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'no active controller answered in time', topicId: ZERO_UUID, numPartitions: -1, replicationFactor: -1, configs: [] };
      }
      return {
        name: t.name,
        errorCode: t.errorCode,
        errorMessage: t.errorMessage,
        topicId: t.topicId,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        configs: (t.configs ?? []).map((c) => ({ name: c.name, value: c.value, readOnly: c.readOnly, configSource: c.configSource, isSensitive: c.isSensitive })),
      };
    });
  };
  /**
   * A created topic is committed at the controller but may not be in this
   * node's image yet: wait (bounded) until it is, so that the caller's next
   * look (Metadata's answer, FindCoordinator's leader) finds it.
   */
  const localImageHas = async (names: readonly string[]): Promise<void> => {
    const deadline = performance.now() + IMAGE_CATCH_UP_WAIT_MS;
    while (!names.every((n) => local.topicExists(n)) && performance.now() < deadline) {
      await new Promise<void>((resolve) => setTimeout(resolve, IMAGE_CATCH_UP_POLL_MS));
    }
  };
  const allocateProducerIds: MetadataService['allocateProducerIds'] = async () => {
    const outcome = await untilControllerAnswers(
      channel,
      () => channel.forward(ALLOCATE_PRODUCER_IDS, 0, { brokerId: nodeId, brokerEpoch: -1n }),
      (answer) => answer.errorCode === ErrorCode.NOT_CONTROLLER,
      onFailure('AllocateProducerIds'),
    );
    if (outcome.local) return local.allocateProducerIds();
    const a = outcome.answer;
    if (a === null) return { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'no active controller answered in time', firstProducerId: -1n, size: 0 };
    return { errorCode: a.errorCode, errorMessage: null, firstProducerId: a.producerIdStart, size: a.producerIdLen };
  };
  // The local service is a plain object of closures (metadata-bridge.ts): a spread keeps every other member.
  return { ...local, createTopics, allocateProducerIds };
}

/** How long a forwarded CreateTopics waits for this node's image to show the new topics. */
const IMAGE_CATCH_UP_WAIT_MS = 2_000;
const IMAGE_CATCH_UP_POLL_MS = 10;
const CREATE_TOPICS = { request: CreateTopicsRequest, response: CreateTopicsResponse };
/** v7: the answer carries the topic id, partition count, replication factor and configs. */
const CREATE_TOPICS_VERSION = 7;
const ALLOCATE_PRODUCER_IDS = { request: AllocateProducerIdsRequest, response: AllocateProducerIdsResponse };

/** Whether any `errorCode` field in a decoded response equals `code` (responses are small plain objects). */
function mentions(value: unknown, code: number, depth = 0): boolean {
  if (depth > 6 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => mentions(v, code, depth + 1));
  for (const [k, v] of Object.entries(value)) {
    if (k === 'errorCode' && v === code) return true;
    if (typeof v === 'object' && mentions(v, code, depth + 1)) return true;
  }
  return false;
}
