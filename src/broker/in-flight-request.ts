/**
 * One request between its arrival and its response's write: what its
 * handler knows about it (RequestContext) and the slot its response waits
 * in, in arrival order (connection.ts). One object per request instead of a
 * context, a slot and a closure for `afterResponseWritten`: at linger 0
 * every record costs a Produce and a Fetch, and each is garbage the young
 * generation's scavenges then walk (bench/README.md, "Tail latency").
 */
import type { Logger } from 'pino';
import type { RequestContext } from './request-context.js';
import type { BrokerServices } from './services.js';
import type { SaslSession } from '../security/sasl/session.js';
import type { RequestAuthorizer } from '../security/authorizer/request-authorizer.js';

/** A response waiting for its turn to be written (in request order). */
export interface ResponseSlot {
  done: boolean;
  /** Encoded response frame (length prefix included), or null for "no response". */
  chunks: Buffer[] | null;
  /** Run once the frame is handed to the kernel (RequestContext.afterResponseWritten); not if the connection fails first. */
  afterWrite: (() => void)[] | null;
}

/** What a connection knows of itself that each of its requests' contexts carries. */
export type RequestOrigin = Pick<RequestContext, 'listenerName' | 'connectionId' | 'clientAddress' | 'services' | 'logger'> & {
  readonly onPeerClosed: (fn: () => void) => void;
};

export class InFlightRequest implements RequestContext, ResponseSlot {
  done = false;
  chunks: Buffer[] | null = null;
  afterWrite: (() => void)[] | null = null;
  readonly listenerName: string;
  readonly connectionId: string;
  readonly clientAddress: string;
  readonly services: BrokerServices;
  readonly logger: Logger;
  readonly onPeerClosed: (fn: () => void) => void;

  constructor(
    origin: RequestOrigin,
    readonly apiKey: number,
    readonly apiVersion: number,
    readonly correlationId: number,
    readonly clientId: string | null,
    readonly principal: string,
    readonly authz: RequestAuthorizer,
    readonly sasl: SaslSession | undefined,
    readonly receivedAtMs: number,
  ) {
    this.listenerName = origin.listenerName;
    this.connectionId = origin.connectionId;
    this.clientAddress = origin.clientAddress;
    this.services = origin.services;
    this.logger = origin.logger;
    this.onPeerClosed = origin.onPeerClosed;
  }

  // A method, not a closure per request; RequestContext callers call it on the context.
  afterResponseWritten(fn: () => void): void {
    (this.afterWrite ??= []).push(fn);
  }
}
