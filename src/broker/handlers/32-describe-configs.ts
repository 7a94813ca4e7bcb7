// 32 DescribeConfigs, v0-4. v0 answers isDefault; v1 adds includeSynonyms,
// configSource and synonyms; v2 has no wire change (throttling order); v3
// adds includeDocumentation, configType and documentation (KIP-569); v4 is
// flexible. kafkajs sends up to v2, librdkafka v1, kafka-python v2,
// platformatic v2-4.
//
// Topics (resource type 2): every topic key with its effective value and
// source (DYNAMIC_TOPIC_CONFIG 1, DYNAMIC_BROKER_CONFIG 2,
// DYNAMIC_DEFAULT_BROKER_CONFIG 3, STATIC_BROKER_CONFIG 4, DEFAULT_CONFIG 5),
// synonyms in Kafka's order; unknown topics answer UNKNOWN_TOPIC_OR_PARTITION.
// Brokers (4): this node's id gives every broker key (passwords null and
// isSensitive, readOnly unless it can change at run time); '' gives the
// dynamic cluster defaults that are set (as Kafka). Another node's id, and
// other resource types (broker loggers...), answer INVALID_REQUEST.
// configurationKeys null = every key; unknown keys in it are skipped.
// Building the answer lives in src/broker/configs/.
import { AclOperation } from '../../protocol/acl-types.js';
import { configDeniedCode, configResourceAllowed } from '../request-authorization.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../protocol/messages/32-describe-configs.js';
import { defineHandler } from '../handler.js';

export const describeConfigsHandler = defineHandler({
  apiKey: 32,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 4,
  request: DescribeConfigsRequest,
  response: DescribeConfigsResponse,
  handle(ctx, req) {
    const options = { includeSynonyms: ctx.apiVersion >= 1 && req.includeSynonyms, includeDocumentation: ctx.apiVersion >= 3 && req.includeDocumentation };
    return {
      throttleTimeMs: 0,
      results: req.resources.map((r) => {
        // DESCRIBE_CONFIGS on each topic, or on the cluster for brokers.
        if (!configResourceAllowed(ctx.authz, AclOperation.DESCRIBE_CONFIGS, r.resourceType, r.resourceName)) {
          return { errorCode: configDeniedCode(r.resourceType), errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] };
        }
        const d = ctx.services.configs.describe(r, options);
        return {
          errorCode: d.errorCode,
          errorMessage: d.errorMessage,
          resourceType: d.resourceType,
          resourceName: d.resourceName,
          configs: d.configs.map((c) => ({ ...c, synonyms: c.synonyms.map((s) => ({ ...s })) })),
        };
      }),
    };
  },
  errorResponse: (req, errorCode) => ({
    throttleTimeMs: 0,
    results: req.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] })),
  }),
});
