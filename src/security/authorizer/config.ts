/**
 * The authorizer settings from the broker config: `authorizer.class.name`
 * (Kafka's org.apache.kafka.metadata.authorizer.StandardAuthorizer, or
 * `standard`; empty = no authorization, as Kafka), `super.users` (Kafka's
 * semicolon list) and `allow.everyone.if.no.acl.found`.
 */
import type { BrokerConfig } from '../../config/broker.js';
import type { AuthorizerConfig } from './standard-authorizer.js';

/** Null when `authorizer.class.name` is empty: every request is allowed. */
export function authorizerConfigFrom(config: BrokerConfig): AuthorizerConfig | null {
  if (config.get('authorizer.class.name') === '') return null;
  return {
    superUsers: parseSuperUsers(config.get('super.users')),
    allowEveryoneIfNoAclFound: config.get('allow.everyone.if.no.acl.found'),
  };
}

/** `User:admin; User:ops` -> {User:admin, User:ops} (Kafka splits on `;` and trims). */
export function parseSuperUsers(raw: string): ReadonlySet<string> {
  return new Set(raw.split(';').map((s) => s.trim()).filter((s) => s !== ''));
}
