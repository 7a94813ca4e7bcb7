/**
 * Everything a handler knows about the request besides its body. Present from
 * the first handler on (docs/architecture.md) so that authentication,
 * authorization and quotas can plug in without touching handlers.
 */
import type { Logger } from 'pino';
import type { BrokerServices } from './services.js';
import type { SaslSession } from '../security/sasl/session.js';
import type { RequestAuthorizer } from '../security/authorizer/request-authorizer.js';

export interface RequestContext {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  /** Who is asking: `User:<name>` on an authenticated SASL connection, else `User:ANONYMOUS`. */
  readonly principal: string;
  /** The connection's SASL state on a SASL_PLAINTEXT/SASL_SSL listener (handlers 17 and 36); absent elsewhere. */
  readonly sasl?: SaslSession | undefined;
  /**
   * The authorizer as this request's principal sees it: one call per
   * resource (`ctx.authz.topic(AclOperation.WRITE, name)`); allows
   * everything when no authorizer is configured. Denials are audited once
   * per request.
   */
  readonly authz: RequestAuthorizer;
  /** The listener name the connection came in on (e.g. PLAINTEXT). */
  readonly listenerName: string;
  readonly connectionId: string;
  readonly clientAddress: string;
  /** Monotonic ms when the request was read. */
  readonly receivedAtMs: number;
  readonly services: BrokerServices;
  readonly logger: Logger;
  /**
   * Runs `fn` once the response has been handed to the socket, so buffers it
   * points into can be recycled. Never runs if the connection fails first, so
   * `fn` must only be an optimisation (e.g. BufferPool.release).
   */
  readonly afterResponseWritten: (fn: () => void) => void;
  /**
   * Runs `fn` once when the connection closes because the peer closed or
   * reset it (its process died, or it dropped the connection), not when this
   * node closes it (shutdown, a bad frame). Absent where requests do not
   * come from a socket.
   */
  readonly onPeerClosed?: ((fn: () => void) => void) | undefined;
}
