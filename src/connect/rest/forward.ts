/**
 * Request forwarding between workers of a distributed group, as Kafka
 * Connect's RestServer does: a follower that gets a request only the
 * leader may serve (a config change, a restart, an offsets change) sends it
 * on to the leader's advertised URL and relays the answer; the leader may
 * send a task restart on to the worker that runs the task. The `forward`
 * query parameter bounds the hops: absent on the first, `true` on the
 * second, `false` on the third, which may not forward again (409).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConnectRestError, conflict } from '../runtime/rest-errors.js';

/** Thrown by a herder: this request belongs to the worker at `url` (the leader, or a task's owner). */
export class ForwardRequest extends ConnectRestError {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(409, message);
  }
}

/** How long a forwarded request may take (Kafka's REST request timeout is 90 s). */
const FORWARD_TIMEOUT_MS = 90_000;

function nextForward(req: FastifyRequest): string {
  const q = req.query as Record<string, unknown>;
  const v = Array.isArray(q.forward) ? q.forward[0] : q.forward;
  if (v === undefined) return 'true';
  if (String(v).toLowerCase() === 'true') return 'false';
  throw conflict('Cannot complete request because of a conflicting operation (e.g. worker rebalance)');
}

/** Sends the request to `target` (http://host:port) and relays its status and body. */
export async function forward(req: FastifyRequest, reply: FastifyReply, target: string): Promise<FastifyReply> {
  const hop = nextForward(req);
  const url = new URL(req.url, target.endsWith('/') ? target : `${target}/`);
  url.searchParams.set('forward', hop);
  const init: RequestInit = { method: req.method, headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) };
  if (req.body !== undefined && req.body !== null && req.method !== 'GET' && req.method !== 'DELETE') {
    init.body = JSON.stringify(req.body);
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    throw new ConnectRestError(500, `Error trying to forward REST request: ${(err as Error).message}`);
  }
  const text = await res.text();
  for (const h of ['content-type', 'location']) {
    const v = res.headers.get(h);
    if (v !== null) void reply.header(h, v);
  }
  return reply.code(res.status).send(text === '' ? undefined : text);
}
