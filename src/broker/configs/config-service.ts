/**
 * Configs as the DescribeConfigs / AlterConfigs / IncrementalAlterConfigs
 * handlers see them. Reads come from this node (topic overrides from the
 * metadata image, the dynamic broker overlay); changes go to the controller,
 * which validates them against the same rules and writes ConfigRecords, so
 * they survive restarts and (with Raft) reach every node. Committed records
 * come back through the metadata bridge, which applies them (logs, topic
 * rules, dynamic broker defaults) before the controller answers.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { topicNameProblem } from '../../controller/topic-names.js';
import type { MetadataService } from '../metadata-service.js';
import { describeBroker, describeTopic, type DescribedConfig, type DescribeOptions } from './describe.js';
import type { DynamicBrokerConfig } from './dynamic-broker-config.js';

/** Kafka's ConfigResource.Type ids. */
export const ConfigResourceKind = { Topic: 2, Broker: 4, BrokerLogger: 8 } as const;

export interface ConfigResourceRef {
  readonly resourceType: number;
  readonly resourceName: string;
}

export interface DescribeResourceResult extends ConfigResourceRef {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly configs: DescribedConfig[];
}

export interface AlterResourceResult extends ConfigResourceRef {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface ConfigServiceDeps {
  readonly config: DynamicBrokerConfig;
  readonly metadata: MetadataService;
  /** A topic's explicit config overrides, as the metadata image holds them. */
  readonly topicOverrides: (topic: string) => ReadonlyMap<string, string>;
}

export class ConfigService {
  constructor(private readonly deps: ConfigServiceDeps) {}

  get dynamicConfig(): DynamicBrokerConfig {
    return this.deps.config;
  }

  describe(resource: ConfigResourceRef & { configurationKeys: readonly string[] | null }, options: DescribeOptions): DescribeResourceResult {
    const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
    const fail = (errorCode: number, errorMessage: string): DescribeResourceResult => ({ ...base, errorCode, errorMessage, configs: [] });
    const ok = (configs: DescribedConfig[]): DescribeResourceResult => ({ ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs });
    const keys = resource.configurationKeys;
    if (resource.resourceType === ConfigResourceKind.Topic) {
      const problem = topicNameProblem(resource.resourceName);
      if (problem !== null) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
      if (!this.deps.metadata.topicExists(resource.resourceName)) {
        return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${resource.resourceName}' does not exist.`);
      }
      return ok(describeTopic(this.deps.config, this.deps.topicOverrides(resource.resourceName), keys, options));
    }
    if (resource.resourceType === ConfigResourceKind.Broker) {
      if (resource.resourceName === '') return ok(describeBroker(this.deps.config, false, keys, options));
      if (resource.resourceName === String(this.deps.config.nodeId)) return ok(describeBroker(this.deps.config, true, keys, options));
      // Kafka: a broker describes only itself (clients send the request to the broker named).
      return fail(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${this.deps.config.nodeId} or empty string, but received ${resource.resourceName}`);
    }
    return fail(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${resource.resourceType}; DescribeConfigs supports topics (2) and brokers (4).`);
  }

  /** AlterConfigs: each resource's dynamic configs become exactly the given set. */
  alter(
    resources: readonly (ConfigResourceRef & { configs: readonly { name: string; value: string | null }[] })[],
    validateOnly: boolean,
  ): Promise<AlterResourceResult[]> {
    return this.deps.metadata.alterConfigs(resources, validateOnly);
  }

  /** IncrementalAlterConfigs: SET (0), DELETE (1), APPEND (2), SUBTRACT (3) per key. */
  incrementalAlter(
    resources: readonly (ConfigResourceRef & { configs: readonly { name: string; configOperation: number; value: string | null }[] })[],
    validateOnly: boolean,
  ): Promise<AlterResourceResult[]> {
    return this.deps.metadata.incrementalAlterConfigs(resources, validateOnly);
  }
}
