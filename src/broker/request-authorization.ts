/**
 * The whole-request checks of src/security/authorizer/api-acls.ts, run by
 * the connection before a handler: a request whose group, transactional id
 * or cluster operation is denied never reaches its handler and is answered
 * with the handler's errorResponse carrying the row's error code (as
 * KafkaApis answers e.g. JoinGroup with GROUP_AUTHORIZATION_FAILED). Checks
 * per resource stay in the handlers.
 */
import { AclOperation } from '../protocol/acl-types.js';
import { ErrorCode } from '../protocol/errors.js';
import { API_ACLS } from '../security/authorizer/api-acls.js';
import type { RequestAuthorizer } from '../security/authorizer/request-authorizer.js';

/** The error code of the first denied whole-request check, or null (allowed, or nothing to check). */
export function gateErrorCode(authz: RequestAuthorizer, apiKey: number, apiVersion: number, body: unknown): number | null {
  if (!authz.enabled) return null;
  const checks = API_ACLS[apiKey]?.gate?.(body, apiVersion);
  if (checks === undefined) return null;
  for (const c of checks) {
    if (c.orAnyOf === undefined) {
      if (!authz.allowed(c.operation, c.resourceType, c.name)) return c.error;
      continue;
    }
    // Kafka's InitProducerId: IDEMPOTENT_WRITE on the cluster, or WRITE on any topic (only the second denial is audited).
    if (!authz.allowed(c.operation, c.resourceType, c.name, false) && !authz.anyOfType(c.orAnyOf.operation, c.orAnyOf.resourceType)) return c.error;
  }
  return null;
}

/** ConfigResource types (Kafka's ConfigResource.Type ids) and what guards them: topics by name, brokers and broker loggers by the cluster. */
const CONFIG_TOPIC = 2;

/** May the principal do `operation` (DESCRIBE_CONFIGS, ALTER_CONFIGS) on a config resource? */
export function configResourceAllowed(authz: RequestAuthorizer, operation: number, resourceType: number, resourceName: string): boolean {
  return resourceType === CONFIG_TOPIC ? authz.topic(operation, resourceName) : authz.cluster(operation);
}

/** The error of a denied config resource: TOPIC_ or CLUSTER_AUTHORIZATION_FAILED. */
export function configDeniedCode(resourceType: number): number {
  return resourceType === CONFIG_TOPIC ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
}

/**
 * For handlers whose items go to the active controller: the items the
 * principal may act on are run (forwarded whole, as one smaller request),
 * the others answered with `denied`, after the run's answers.
 */
export async function runAllowed<I, R>(items: readonly I[], allowed: (item: I) => boolean, run: (allowed: readonly I[]) => Promise<readonly R[]>, denied: (item: I) => R): Promise<R[]> {
  const ok: I[] = [];
  const no: I[] = [];
  for (const item of items) (allowed(item) ? ok : no).push(item);
  const answered = ok.length === 0 ? [] : await run(ok);
  return [...answered, ...no.map(denied)];
}

interface ConfigResourceRef {
  readonly resourceType: number;
  readonly resourceName: string;
}

interface ConfigResourceAnswer {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

/**
 * AlterConfigs and IncrementalAlterConfigs: ALTER_CONFIGS on each topic, or
 * on the cluster for brokers, checked before forwarding; only the allowed
 * resources are altered, the others answered TOPIC_ or CLUSTER_AUTHORIZATION_FAILED.
 */
export async function alterAllowedConfigs<R extends ConfigResourceRef, A extends ConfigResourceAnswer>(
  authz: RequestAuthorizer,
  resources: readonly R[],
  alter: (allowed: readonly R[]) => Promise<readonly A[]>,
): Promise<(A | ConfigResourceAnswer)[]> {
  return runAllowed<R, A | ConfigResourceAnswer>(
    resources,
    (r) => configResourceAllowed(authz, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName),
    alter,
    (r) => ({ errorCode: configDeniedCode(r.resourceType), errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName }),
  );
}
