/**
 * Security keys of the broker (Kafka's names): SASL mechanisms and JAAS
 * logins, re-authentication, and the keys a listener may override with the
 * `listener.name.<listener>.` prefix (listener-configs.ts). The SASL code
 * itself is in src/security; this file only defines and validates values.
 */
import { bool, enumOf, int, listOf, long, password, str } from './def.js';

/** The authorizer class names accepted: Kafka's StandardAuthorizer, or `standard` (docs/security.md). */
export const STANDARD_AUTHORIZER_NAMES: readonly string[] = ['org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'standard'];

/** The SASL mechanisms Tributary implements (GSSAPI and OAUTHBEARER are not). */
export const SASL_MECHANISM_NAMES = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

export const securityConfigs = {
  'sasl.enabled.mechanisms': listOf({ values: SASL_MECHANISM_NAMES, default: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], kafkaDefault: 'GSSAPI', importance: 'medium',
    doc: 'SASL mechanisms a SASL_PLAINTEXT or SASL_SSL listener offers, in order. PLAIN needs a JAAS config naming its users; SCRAM users are metadata (tributary user create, AlterUserScramCredentials).' }),
  'sasl.jaas.config': password({ default: null, importance: 'medium',
    doc: 'JAAS login module of SASL listeners without their own listener.name.<listener>.<mechanism>.sasl.jaas.config, e.g. org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";' }),
  'connections.max.reauth.ms': long({ default: 0, min: 0, importance: 'medium',
    doc: 'KIP-368: a SASL session lasts this long (sent to clients as sessionLifetimeMs); after it a client must re-authenticate or its connection is closed. 0 = never.' }),
  'authorizer.class.name': str({ default: '', importance: 'low',
    validate: (v) => (v === '' || STANDARD_AUTHORIZER_NAMES.includes(v) ? undefined : `Tributary's authorizer is ${STANDARD_AUTHORIZER_NAMES[0]} (or "standard"); empty = no authorization`),
    doc: 'The authorizer: org.apache.kafka.metadata.authorizer.StandardAuthorizer (or standard) checks every request against the ACLs of the cluster metadata; empty (the default, as in Kafka) authorizes everything.' }),
  'super.users': str({ default: '', importance: 'medium',
    doc: 'Principals allowed everything whatever the ACLs say, separated by semicolons, e.g. User:admin;User:ANONYMOUS. The principals brokers and controllers use between themselves belong here.' }),
  'allow.everyone.if.no.acl.found': bool({ default: false, importance: 'medium',
    doc: 'With the authorizer on: a resource that no ACL names (literal, prefixed or wildcard, for any principal) is open to everyone. Default false: denied.' }),
  'sasl.server.max.receive.size': int({ default: 524_288, min: 1, importance: 'low',
    doc: 'Largest frame accepted before a SASL connection is authenticated; a bigger one closes the connection.' }),
  'sasl.mechanism.inter.broker.protocol': enumOf({ values: SASL_MECHANISM_NAMES, default: 'PLAIN', kafkaDefault: 'GSSAPI', importance: 'medium',
    doc: 'Mechanism this broker logs in with on another broker\'s SASL inter-broker listener; the username and password are those of the listener\'s JAAS config (username="..." password="...").' }),
  'sasl.mechanism.controller.protocol': enumOf({ values: SASL_MECHANISM_NAMES, default: 'PLAIN', kafkaDefault: 'GSSAPI', importance: 'medium',
    doc: 'Mechanism this node logs in with on a controller\'s SASL controller listener; credentials from that listener\'s JAAS config.' }),
};

/**
 * Keys a listener may override as `listener.name.<listener>.<key>`. A JAAS
 * config may also be given per mechanism:
 * `listener.name.<listener>.<mechanism in lower case>.sasl.jaas.config`.
 */
export const LISTENER_SCOPED_KEYS: ReadonlySet<string> = new Set(['sasl.enabled.mechanisms', 'sasl.jaas.config', 'connections.max.reauth.ms', 'sasl.server.max.receive.size']);
