/**
 * The active controller (for now the only one: a cluster of one node in
 * combined mode, DESIGN.md section 3). It turns admin requests into metadata
 * records: validate against the current image (plans.ts), append the records
 * as one atomic batch, answer per item with a Kafka error code.
 *
 * Requests run one at a time, in arrival order: each plan sees the image with
 * every earlier request applied (an append resolves only after its batch has
 * been applied to the image). The queue is bounded (CONTROLLER_QUEUE_MAX).
 *
 * It only talks to the MetadataLog interface: with Raft, an append on a node
 * that lost leadership fails with NOT_LEADER and the items answer
 * NOT_CONTROLLER, so clients retry against the new controller.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Random } from '../util/random.js';
import { legacyAlterToIncremental, planAlterConfigs, type ConfigPlanContext, type ConfigSchema } from './config-plan.js';
import { planDeleteTopics } from './delete-plan.js';
import { METADATA_BATCH_RECORDS_MAX } from './metadata/batch.js';
import type { EndPoint, MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import { MetadataLogError, type MetadataLog } from './metadata-log.js';
import { planCreatePartitions, planCreateTopics, type Plan, type PlanContext } from './plans.js';
import { INTERNAL_TOPICS } from './topic-names.js';
import type {
  AlterConfigsResource,
  AlterConfigsResult,
  BrokerConfigValidator,
  CreateTopicResult,
  DeleteTopicRef,
  DeleteTopicResult,
  ListenerEndpoint,
  NewPartitions,
  NewTopic,
  TopicConfigValidator,
  TopicErrorResult,
} from './types.js';
import { randomUuid } from './uuid.js';

/** Requests waiting for the controller before new ones are refused. */
export const CONTROLLER_QUEUE_MAX = 1000;

/**
 * Feature levels the controller finalizes at boot (ApiVersions reports them as
 * finalized features). Level 1 of `metadata.version` is the first KRaft level
 * (Kafka's 3.0-IV1): we claim no later metadata feature until we implement it.
 */
export const DEFAULT_FEATURE_LEVELS: Readonly<Record<string, number>> = Object.freeze({ 'metadata.version': 1 });

/** Kafka's SecurityProtocol ids. */
const SECURITY_PROTOCOLS: Readonly<Record<string, number>> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

export type ControllerErrorCode = 'ERR_TRIB_CONTROLLER_BUSY' | 'ERR_TRIB_CONTROLLER_CLOSED';

export class ControllerError extends Error {
  constructor(
    readonly code: ControllerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ControllerError';
  }
}

export interface ControllerOptions {
  nodeId: number;
  log: MetadataLog;
  /** The image the MetadataPublisher keeps current from the log's commits. */
  image: MetadataImage;
  random: Random;
  /** num.partitions */
  numPartitionsDefault: number;
  /** default.replication.factor */
  replicationFactorDefault: number;
  validateTopicConfigs: TopicConfigValidator;
  validateBrokerConfigs?: BrokerConfigValidator | null | undefined;
  /** Key types and inherited values for IncrementalAlterConfigs APPEND/SUBTRACT. */
  configSchema?: ConfigSchema | null | undefined;
  /** Topics DeleteTopics refuses (default: __consumer_offsets, __transaction_state). */
  protectedTopics?: ReadonlySet<string> | undefined;
  featureLevels?: Readonly<Record<string, number>> | undefined;
}

interface ItemResult {
  errorCode: ErrorCode;
  errorMessage: string | null;
}

export class QuorumController {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private closed = false;

  constructor(private readonly opts: ControllerOptions) {}

  get image(): MetadataImage {
    return this.opts.image;
  }

  createTopics(topics: readonly NewTopic[], options: { validateOnly: boolean }): Promise<CreateTopicResult[]> {
    return this.run(async () => {
      const plan = planCreateTopics(this.planContext(), topics, options.validateOnly);
      return this.commit(plan, (r) => ({ ...r, topicId: ZERO_UUID, numPartitions: -1, replicationFactor: -1, configs: [] }));
    });
  }

  deleteTopics(refs: readonly DeleteTopicRef[]): Promise<DeleteTopicResult[]> {
    return this.run(async () => {
      const plan = planDeleteTopics({ image: this.image, protectedTopics: this.opts.protectedTopics ?? INTERNAL_TOPICS }, refs);
      return this.commit(plan, (r) => r);
    });
  }

  createPartitions(specs: readonly NewPartitions[], options: { validateOnly: boolean }): Promise<TopicErrorResult[]> {
    return this.run(async () => this.commit(planCreatePartitions(this.planContext(), specs, options.validateOnly), (r) => r));
  }

  /** IncrementalAlterConfigs (plumbing: topic configs validated; broker configs need a validator). */
  incrementalAlterConfigs(resources: readonly AlterConfigsResource[], options: { validateOnly: boolean }): Promise<AlterConfigsResult[]> {
    return this.run(async () => {
      const plan = planAlterConfigs(this.configPlanContext(), resources, options.validateOnly);
      return this.commit(plan, (r) => r);
    });
  }

  /**
   * AlterConfigs (legacy): each resource's explicit configs become exactly
   * the given set; validated and written like incrementalAlterConfigs.
   */
  alterConfigs(
    resources: readonly { resourceType: number; resourceName: string; configs: readonly { name: string; value: string | null }[] }[],
    options: { validateOnly: boolean },
  ): Promise<AlterConfigsResult[]> {
    return this.run(async () => {
      const plan = planAlterConfigs(this.configPlanContext(), legacyAlterToIncremental(this.image, resources), options.validateOnly);
      return this.commit(plan, (r) => r);
    });
  }

  private configPlanContext(): ConfigPlanContext {
    return {
      image: this.image,
      validateTopicConfigs: this.opts.validateTopicConfigs,
      validateBrokerConfigs: this.opts.validateBrokerConfigs ?? null,
      schema: this.opts.configSchema ?? null,
    };
  }

  /**
   * Registers this node (combined mode) with its advertised listeners,
   * unfenced. A no-op when the image already has the same registration, so
   * restarts do not grow the log; a changed listener or rack re-registers
   * with a new incarnation id and a broker epoch = the record's offset.
   */
  registerBroker(registration: { endpoints: readonly ListenerEndpoint[]; rack: string | null }): Promise<void> {
    return this.run(async () => {
      const endPoints = registration.endpoints.map(toEndPoint);
      const current = this.image.broker(this.opts.nodeId);
      if (current !== undefined && !current.fenced && current.rack === registration.rack && sameEndPoints(current.endPoints, endPoints)) return;
      await this.opts.log.append([
        {
          type: 'RegisterBrokerRecord',
          data: {
            brokerId: this.opts.nodeId,
            incarnationId: randomUuid(this.opts.random),
            brokerEpoch: this.opts.log.endOffset,
            endPoints,
            features: [],
            rack: registration.rack,
            fenced: false,
            inControlledShutdown: false,
          },
        },
      ]);
    });
  }

  /** Writes FeatureLevelRecords for the configured features whose finalized level differs. */
  finalizeFeatures(): Promise<void> {
    return this.run(async () => {
      const records: MetadataRecord[] = [];
      for (const [name, featureLevel] of Object.entries(this.opts.featureLevels ?? DEFAULT_FEATURE_LEVELS)) {
        if ((this.image.featureLevel(name) ?? 0) !== featureLevel) records.push({ type: 'FeatureLevelRecord', data: { name, featureLevel } });
      }
      if (records.length > 0) await this.opts.log.append(records);
    });
  }

  /** Refuses new requests; waits for the queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    await this.tail.catch(() => undefined);
  }

  private planContext(): PlanContext {
    return {
      image: this.image,
      random: this.opts.random,
      numPartitionsDefault: this.opts.numPartitionsDefault,
      replicationFactorDefault: this.opts.replicationFactorDefault,
      validateTopicConfigs: this.opts.validateTopicConfigs,
    };
  }

  private run<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new ControllerError('ERR_TRIB_CONTROLLER_CLOSED', 'the controller is shut down'));
    if (this.queued >= CONTROLLER_QUEUE_MAX) {
      return Promise.reject(new ControllerError('ERR_TRIB_CONTROLLER_BUSY', `${CONTROLLER_QUEUE_MAX} controller requests are already waiting`));
    }
    this.queued++;
    const next = this.tail.then(op).finally(() => {
      this.queued--;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * Appends the plan's records (one batch). When the append fails, the items
   * that had succeeded get the failure instead: NOT_CONTROLLER when this
   * node is not the leader (retriable), else UNKNOWN_SERVER_ERROR.
   */
  private async commit<R extends ItemResult>(plan: Plan<R>, onFailure: (r: R) => R): Promise<R[]> {
    if (plan.records.length === 0) return plan.results;
    let failure: ItemResult | null = null;
    if (plan.records.length > METADATA_BATCH_RECORDS_MAX) {
      failure = { errorCode: ErrorCode.POLICY_VIOLATION, errorMessage: `The request needs ${plan.records.length} metadata records; at most ${METADATA_BATCH_RECORDS_MAX} fit one change.` };
    } else {
      try {
        await this.opts.log.append(plan.records);
      } catch (err) {
        if (!(err instanceof MetadataLogError)) throw err;
        failure = err.code === 'ERR_TRIB_METADATA_NOT_LEADER'
          ? { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'This node is no longer the active controller.' }
          : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: `The metadata log could not commit the change: ${err.message}` };
      }
    }
    if (failure === null) return plan.results;
    const f = failure;
    return plan.results.map((r) => (r.errorCode === ErrorCode.NONE ? { ...onFailure(r), errorCode: f.errorCode, errorMessage: f.errorMessage } : r));
  }
}

function toEndPoint(e: ListenerEndpoint): EndPoint {
  const protocol = e.securityProtocol;
  const securityProtocol = typeof protocol === 'number' ? protocol : SECURITY_PROTOCOLS[(protocol ?? e.name).toUpperCase()] ?? 0;
  return { name: e.name, host: e.host, port: e.port, securityProtocol };
}

function sameEndPoints(a: readonly EndPoint[], b: readonly EndPoint[]): boolean {
  return a.length === b.length && a.every((e, i) => {
    const o = b[i];
    return o !== undefined && e.name === o.name && e.host === o.host && e.port === o.port && e.securityProtocol === o.securityProtocol;
  });
}
