/**
 * The principal of a connection on an SSL listener, as Kafka's
 * DefaultKafkaPrincipalBuilder builds it: `User:` + the client
 * certificate's subject (RFC 2253, distinguished-name.ts) mapped by
 * `ssl.principal.mapping.rules`; `User:ANONYMOUS` when the client sent no
 * certificate (ssl.client.auth=none or requested). A certificate that does
 * not verify against the trust store, or a name no rule maps, refuses the
 * connection. On SASL_SSL the principal comes from SASL instead; the
 * certificate is still checked.
 */
import type { TLSSocket } from 'node:tls';
import { certificateSubject } from './distinguished-name.js';
import type { PrincipalMapper } from './principal-mapper.js';

export const ANONYMOUS = 'User:ANONYMOUS';

export type PeerPrincipal = { readonly ok: true; readonly principal: string; readonly subject: string | null } | { readonly ok: false; readonly reason: string };

export function peerPrincipal(socket: TLSSocket, mapper: PrincipalMapper): PeerPrincipal {
  const certificate = socket.getPeerX509Certificate();
  if (certificate === undefined) return { ok: true, principal: ANONYMOUS, subject: null };
  if (!socket.authorized) return { ok: false, reason: `client certificate not trusted (${String(socket.authorizationError)})` };
  let subject: string;
  try {
    subject = certificateSubject(certificate.raw);
  } catch (err) {
    return { ok: false, reason: `client certificate unreadable (${(err as Error).message})` };
  }
  const name = mapper.map(subject);
  if (name === null) return { ok: false, reason: `no ssl.principal.mapping.rules rule applies to ${subject}` };
  return { ok: true, principal: `User:${name}`, subject };
}
