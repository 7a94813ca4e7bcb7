/**
 * The SASL state of one connection on a SASL_PLAINTEXT or SASL_SSL listener
 * (Kafka's SaslServerAuthenticator, as the connection and handlers 17 and
 * 36 see it).
 *
 *   handshake ──SaslHandshake(mechanism ok)──▶ authenticate ──tokens ok──▶ authenticated
 *                                                  │ bad token                  │ SaslHandshake (KIP-368 re-authentication)
 *                                                  ▼                            ▼
 *                                               failed                    authenticate (old session still valid)
 *
 * Before the first authentication only ApiVersions and SaslHandshake (and
 * SaslAuthenticate once a mechanism is chosen) are served; `permits` says
 * false for anything else and the connection closes, as Kafka does. A
 * SaslHandshake v0 switches to raw tokens: the client's next frames are bare
 * SASL tokens without a request header (pre-KIP-152 clients such as
 * kafka-python), answered with bare frames; a v1 handshake means tokens come
 * in SaslAuthenticate requests, and failures are reported there with
 * SASL_AUTHENTICATION_FAILED (KIP-152) before the connection closes.
 *
 * KIP-368: with `connections.max.reauth.ms` > 0 the session lasts that long
 * (told to v1+ clients as sessionLifetimeMs); after it, any request but
 * SaslHandshake closes the connection. A re-authentication must use the
 * same mechanism and end with the same principal.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { ScramHash } from '../../util/scram.js';
import { SaslAuthenticationError, type SaslMechanism, type SaslServer } from './mechanism.js';
import { PlainServer } from './plain.js';
import { ScramServer, type StoredScramCredential } from './scram.js';

export interface SaslListenerConfig {
  /** sasl.enabled.mechanisms of the listener, in the order clients are told. */
  readonly mechanisms: readonly SaslMechanism[];
  /** PLAIN users from the listener's JAAS config (user_<name>). */
  readonly plainUsers: ReadonlyMap<string, string>;
  /** A user's SCRAM credential for a mechanism (the metadata image). */
  readonly scramCredential: (mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', user: string) => StoredScramCredential | undefined;
  /** connections.max.reauth.ms; 0 = sessions never expire. */
  readonly reauthMs: number;
}

const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;

type State = 'handshake' | 'authenticate' | 'authenticated' | 'failed';

export interface HandshakeAnswer {
  errorCode: number;
  mechanisms: string[];
}

export interface AuthenticateAnswer {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  sessionLifetimeMs: bigint;
}

const HASH: Readonly<Record<'SCRAM-SHA-256' | 'SCRAM-SHA-512', ScramHash>> = { 'SCRAM-SHA-256': 'sha256', 'SCRAM-SHA-512': 'sha512' };

export class SaslSession {
  private state: State = 'handshake';
  private mechanism: SaslMechanism | null = null;
  private server: SaslServer | null = null;
  private raw = false;
  private user: string | null = null;
  private expiresAtMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly config: SaslListenerConfig,
    private readonly nowMs: () => number,
  ) {}

  /** `User:<name>` once authenticated (kept during a re-authentication); null before. */
  get principal(): string | null {
    return this.user === null ? null : `User:${this.user}`;
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  /** True when the next frame is a bare SASL token (after a v0 handshake). */
  get rawTokenExpected(): boolean {
    return this.state === 'authenticate' && this.raw;
  }

  /** Whether a request of this API may be served now; false closes the connection. */
  permits(apiKey: number): boolean {
    if (this.state === 'failed') return false;
    if (apiKey === API_VERSIONS || apiKey === SASL_HANDSHAKE) return true;
    if (apiKey === SASL_AUTHENTICATE) return this.state === 'authenticate' || this.sessionValid();
    return this.sessionValid();
  }

  private sessionValid(): boolean {
    return this.user !== null && this.nowMs() < this.expiresAtMs;
  }

  handshake(mechanism: string, version: number): HandshakeAnswer {
    const mechanisms = [...this.config.mechanisms];
    if (this.state === 'authenticate' || this.state === 'failed') return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    const chosen = this.config.mechanisms.find((m) => m === mechanism);
    if (chosen === undefined || (this.mechanism !== null && chosen !== this.mechanism)) {
      // Kafka closes the connection after an unsupported mechanism; so do we (after the answer).
      if (this.user === null) this.state = 'failed';
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    this.mechanism = chosen;
    this.server = this.serverFor(chosen);
    this.raw = version === 0;
    this.state = 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms };
  }

  authenticate(token: Buffer, version: number): AuthenticateAnswer {
    const none = { authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
    if (this.state !== 'authenticate' || this.raw) {
      return { ...none, errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: `Unexpected SaslAuthenticate request in state ${this.state}` };
    }
    try {
      const step = this.evaluate(token);
      if (step === null) return { ...none, errorCode: ErrorCode.NONE, errorMessage: null, authBytes: this.lastChallenge };
      const lifetime = this.config.reauthMs > 0 && version >= 1 ? BigInt(this.config.reauthMs) : 0n;
      return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: step, sessionLifetimeMs: lifetime };
    } catch (err) {
      this.state = 'failed';
      return { ...none, errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: this.failureMessage(err) };
    }
  }

  /**
   * What the client is told (Kafka's wording): PLAIN's own messages; for
   * SCRAM one message whatever went wrong, so unknown users and wrong
   * passwords look the same.
   */
  private failureMessage(err: unknown): string {
    if (this.mechanism !== null && this.mechanism !== 'PLAIN') return `Authentication failed during authentication due to invalid credentials with SASL mechanism ${this.mechanism}`;
    return err instanceof SaslAuthenticationError ? err.message : 'Authentication failed';
  }

  /** A bare token after a v0 handshake: the bare reply, or null when authentication failed (close). */
  rawToken(token: Buffer): Buffer | null {
    try {
      const done = this.evaluate(token);
      return done ?? this.lastChallenge;
    } catch {
      this.state = 'failed';
      return null;
    }
  }

  private lastChallenge: Buffer = Buffer.alloc(0);

  /** Feeds one token: null with `lastChallenge` set while the exchange goes on, else the final server message. */
  private evaluate(token: Buffer): Buffer | null {
    const step = (this.server as SaslServer).evaluate(token);
    if (!step.complete) {
      this.lastChallenge = step.challenge;
      return null;
    }
    if (this.user !== null && step.user !== this.user) throw new SaslAuthenticationError('Cannot change principals during re-authentication');
    this.user = step.user;
    this.state = 'authenticated';
    this.server = null;
    this.expiresAtMs = this.config.reauthMs > 0 ? this.nowMs() + this.config.reauthMs : Number.POSITIVE_INFINITY;
    return step.response;
  }

  private serverFor(mechanism: SaslMechanism): SaslServer {
    if (mechanism === 'PLAIN') return new PlainServer(this.config.plainUsers);
    return new ScramServer(HASH[mechanism], (user) => this.config.scramCredential(mechanism, user));
  }
}

