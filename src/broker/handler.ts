/**
 * What a request handler is: one per API key, in handlers/NN-name.ts, declaring
 * the version range it fully implements. ApiVersions is built from the
 * registry of these, so the broker never advertises what it cannot answer.
 */
import type { Infer, Input, MessageSchema } from '../protocol/schema.js';
import type { RequestContext } from './request-context.js';

/** Returned by a handler when the protocol says no response is sent (Produce acks=0). */
export const NO_RESPONSE: unique symbol = Symbol('no response');

export interface Handler<Req extends MessageSchema = MessageSchema, Res extends MessageSchema = MessageSchema> {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly request: Req;
  readonly response: Res;
  handle(ctx: RequestContext, request: Infer<Req>): Input<Res> | typeof NO_RESPONSE | Promise<Input<Res> | typeof NO_RESPONSE>;
  /**
   * The response for a request this handler could not answer (an unexpected
   * exception). Each handler knows where its error codes go.
   */
  errorResponse(request: Infer<Req>, errorCode: number, ctx: RequestContext): Input<Res>;
}

export function defineHandler<Req extends MessageSchema, Res extends MessageSchema>(handler: Handler<Req, Res>): Handler<Req, Res> {
  return handler;
}

// Handlers are stored type-erased in the registry; each one is typed where it is defined.
export type AnyHandler = Handler<MessageSchema, MessageSchema>;
