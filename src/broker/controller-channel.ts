/**
 * Where admin requests that change metadata go (CreateTopics, DeleteTopics,
 * CreatePartitions, AlterConfigs, IncrementalAlterConfigs): to the local
 * QuorumController when this node is the active controller, else forwarded
 * as-is (same API version, same body) to the active controller's controller
 * listener, whose answer goes back to the client unchanged. Kafka wraps
 * forwarded requests in an Envelope (58) to carry the client's principal;
 * we send the request itself, since the authorizer is allow-all (DESIGN.md
 * principle 7: the principal travels in the envelope once ACLs land).
 *
 * While no controller is known (an election), or it does not answer, or it
 * answers NOT_CONTROLLER (it lost leadership meanwhile), the request waits
 * and is sent again, for up to FORWARD_WAIT_MS, as Kafka's forwarding
 * manager does: clients do not see the election (kafkajs, for one, gives up
 * on a per-topic NOT_CONTROLLER instead of retrying). After that the answer
 * is NOT_CONTROLLER. A retried CreateTopics whose first attempt committed
 * answers TOPIC_ALREADY_EXISTS, as in Kafka.
 * A request that arrived on a controller listener is never forwarded again
 * (no loops while leadership moves): it runs locally and the local
 * controller answers NOT_CONTROLLER if it is not the leader.
 */
import type { ApiPair } from '../client/connection.js';
import { ErrorCode } from '../protocol/errors.js';
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
  const deadline = performance.now() + FORWARD_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    if (channel.isLocal()) return null;
    let answer: Infer<Res> | null = null;
    try {
      answer = await channel.forward(api, ctx.apiVersion, request as Input<Req>);
      if (!mentions(answer, ErrorCode.NOT_CONTROLLER)) return answer as Input<Res>;
    } catch (err) {
      ctx.logger.debug({ err, apiKey: ctx.apiKey, attempt }, 'forwarding to the active controller failed');
    }
    if (performance.now() >= deadline) {
      ctx.logger.debug({ apiKey: ctx.apiKey, attempts: attempt }, 'no active controller answered in time; answering NOT_CONTROLLER');
      return answer !== null ? (answer as Input<Res>) : errorResponse(ErrorCode.NOT_CONTROLLER);
    }
    await new Promise<void>((resolve) => setTimeout(resolve, FORWARD_RETRY_MS));
  }
}

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
