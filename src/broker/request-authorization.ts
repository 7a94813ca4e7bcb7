/**
 * The whole-request checks of src/security/authorizer/api-acls.ts, run by
 * the connection before a handler: a request whose group, transactional id
 * or cluster operation is denied never reaches its handler and is answered
 * with the handler's errorResponse carrying the row's error code (as
 * KafkaApis answers e.g. JoinGroup with GROUP_AUTHORIZATION_FAILED). Checks
 * per resource stay in the handlers.
 */
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
