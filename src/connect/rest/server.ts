/**
 * Kafka Connect's REST API on fastify: the same paths, JSON shapes, status
 * codes and `{ "error_code", "message" }` error bodies as Kafka Connect
 * (https://kafka.apache.org/documentation/#connect_rest), plus GET /metrics
 * with the worker's Prometheus metrics.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ConnectRestError, badRequest } from '../runtime/rest-errors.js';
import type { Herder, OffsetsBody } from '../runtime/herder.js';
import { ForwardRequest, forward } from './forward.js';

export const CONNECT_VERSION = '3.9.0';

type Params = { name: string; id: string; plugin: string };
type Req = FastifyRequest<{ Params: Params; Querystring: Record<string, string | string[] | undefined>; Body: unknown }>;

function stringMap(value: unknown, what: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${what} must be a JSON object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) out[k] = v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

function taskId(raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id < 0) throw badRequest(`Invalid task id ${raw}`);
  return id;
}

function flag(q: Record<string, string | string[] | undefined>, name: string): boolean {
  const v = q[name];
  return (Array.isArray(v) ? v[0] : v)?.toLowerCase() === 'true';
}

function errorBody(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('application/json').send({ error_code: status, message });
}

export interface RestServerOptions {
  herder: Herder;
  clusterId: string;
  metrics: () => Promise<string>;
}

export function buildRestServer(o: RestServerOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
  const h = o.herder;
  app.setErrorHandler(async (err: Error & { statusCode?: number }, req, reply) => {
    if (err instanceof ForwardRequest) {
      try {
        return await forward(req, reply, err.url);
      } catch (e) {
        const f = e instanceof ConnectRestError ? e : new ConnectRestError(500, (e as Error).message);
        return errorBody(reply, f.status, f.message);
      }
    }
    if (err instanceof ConnectRestError) return errorBody(reply, err.status, err.message);
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return errorBody(reply, err.statusCode, err.message);
    return errorBody(reply, 500, err.message);
  });
  app.setNotFoundHandler((_req, reply) => errorBody(reply, 404, 'HTTP 404 Not Found'));

  app.get('/', async () => ({ version: CONNECT_VERSION, commit: 'tributary', kafka_cluster_id: o.clusterId }));
  app.get('/metrics', async (_req, reply) => reply.type('text/plain; version=0.0.4').send(await o.metrics()));
  registerConnectorRoutes(app, h);
  registerStateRoutes(app, h);
  registerPluginRoutes(app, h);
  return app;
}

function registerConnectorRoutes(app: FastifyInstance, h: Herder): void {
  app.get('/connectors', async (req: Req) => {
    const expand = ([] as (string | undefined)[]).concat(req.query.expand);
    if (!expand.includes('status') && !expand.includes('info')) return h.connectors();
    const out: Record<string, Record<string, unknown>> = {};
    for (const name of await h.connectors()) {
      const entry: Record<string, unknown> = {};
      try {
        if (expand.includes('status')) entry.status = await h.status(name);
        if (expand.includes('info')) entry.info = await h.connectorInfo(name);
      } catch (err) {
        // Deleted meanwhile, or (in a group) no status written yet: left out, as Kafka does.
        if (err instanceof ConnectRestError && err.status === 404) continue;
        throw err;
      }
      out[name] = entry;
    }
    return out;
  });
  app.post('/connectors', async (req: Req, reply) => {
    const body = req.body as { name?: unknown; config?: unknown } | null;
    if (typeof body !== 'object' || body === null) throw badRequest('Request body must be a JSON object with name and config');
    const config = stringMap(body.config ?? {}, 'config');
    const name = typeof body.name === 'string' ? body.name : config.name;
    if (name === undefined || name.trim() === '') throw badRequest('Connector name must be specified');
    if (config.name !== undefined && config.name !== name) throw badRequest(`Connector name configuration (${config.name}) doesn't match connector name in the URL (${name})`);
    const { info } = await h.putConnectorConfig(name, config, false);
    return reply.code(201).header('location', `/connectors/${encodeURIComponent(name)}`).send(info);
  });
  app.get('/connectors/:name', async (req: Req) => h.connectorInfo(req.params.name));
  app.get('/connectors/:name/config', async (req: Req) => h.connectorConfig(req.params.name));
  app.put('/connectors/:name/config', async (req: Req, reply) => {
    const config = stringMap(req.body, 'Connector config');
    const name = req.params.name;
    if (config.name !== undefined && config.name !== name) throw badRequest(`Connector name configuration (${config.name}) doesn't match connector name in the URL (${name})`);
    const { created, info } = await h.putConnectorConfig(name, config, true);
    if (created) reply.header('location', `/connectors/${encodeURIComponent(name)}`);
    return reply.code(created ? 201 : 200).send(info);
  });
  app.delete('/connectors/:name', async (req: Req, reply) => {
    await h.deleteConnector(req.params.name);
    return reply.code(204).send();
  });
  app.get('/connectors/:name/status', async (req: Req) => h.status(req.params.name));
  app.get('/connectors/:name/tasks', async (req: Req) => h.taskConfigs(req.params.name));
  app.get('/connectors/:name/tasks/:id/status', async (req: Req) => h.taskStatus(req.params.name, taskId(req.params.id)));
  app.get('/connectors/:name/topics', async (req: Req) => ({ [req.params.name]: { topics: await h.topics(req.params.name) } }));
  // Kafka's internal endpoint: a worker running the connector hands its task configs to the leader.
  app.post('/connectors/:name/tasks', async (req: Req, reply) => {
    if (h.putTaskConfigs === undefined) throw badRequest('This worker does not accept task configurations');
    if (!Array.isArray(req.body)) throw badRequest('Task configurations must be a JSON array');
    await h.putTaskConfigs(req.params.name, req.body.map((c, i) => stringMap(c, `Task configuration ${i}`)));
    return reply.code(204).send();
  });
  app.get('/connectors/:name/offsets', async (req: Req) => h.offsets(req.params.name));
  app.patch('/connectors/:name/offsets', async (req: Req) => {
    if (typeof req.body !== 'object' || req.body === null) throw badRequest('Request body must be a JSON object with offsets');
    return { message: await h.modifyOffsets(req.params.name, req.body as OffsetsBody) };
  });
  app.delete('/connectors/:name/offsets', async (req: Req) => ({ message: await h.modifyOffsets(req.params.name, null) }));
}

function registerStateRoutes(app: FastifyInstance, h: Herder): void {
  app.post('/connectors/:name/restart', async (req: Req, reply) => {
    const includeTasks = flag(req.query, 'includeTasks');
    const onlyFailed = flag(req.query, 'onlyFailed');
    const plan = await h.restartConnector(req.params.name, includeTasks, onlyFailed);
    // Kafka (KIP-745): the plain restart answers 204; with includeTasks/onlyFailed, 202 and the plan (what restarts shown RESTARTING).
    if (!includeTasks && !onlyFailed) return reply.code(204).send();
    return reply.code(202).send(plan.status);
  });
  app.post('/connectors/:name/tasks/:id/restart', async (req: Req, reply) => {
    await h.restartTask(req.params.name, taskId(req.params.id));
    return reply.code(204).send();
  });
  app.put('/connectors/:name/pause', async (req: Req, reply) => {
    await h.setTarget(req.params.name, 'PAUSED');
    return reply.code(202).send();
  });
  app.put('/connectors/:name/resume', async (req: Req, reply) => {
    await h.setTarget(req.params.name, 'STARTED');
    return reply.code(202).send();
  });
  app.put('/connectors/:name/stop', async (req: Req, reply) => {
    await h.setTarget(req.params.name, 'STOPPED');
    return reply.code(204).send();
  });
}

function registerPluginRoutes(app: FastifyInstance, h: Herder): void {
  const plugins = h.plugins;
  app.get('/connector-plugins', async (req: Req) => {
    const list: { class: string; type: string; version?: string }[] = plugins.connectorPlugins();
    if (req.query.connectorsOnly === 'false') {
      for (const c of plugins.transforms.keys()) list.push({ class: c, type: 'transformation' });
      for (const c of plugins.predicates.keys()) list.push({ class: c, type: 'predicate' });
      for (const c of plugins.converters.keys()) list.push({ class: c, type: 'converter' });
    }
    return list;
  });
  app.put('/connector-plugins/:plugin/config/validate', async (req: Req) => {
    const config = stringMap(req.body, 'Connector config');
    const plugin = req.params.plugin;
    const given = config['connector.class'];
    if (given !== undefined) {
      const a = plugins.connectorClass(given)?.className ?? given;
      const b = plugins.connectorClass(plugin)?.className ?? plugin;
      if (a !== b) throw badRequest(`Included connector type ${given} does not match request type ${plugin}`);
    }
    if (plugins.connectorClass(plugin) === undefined) throw badRequest(`Failed to find any class that implements Connector and which name matches ${plugin}`);
    return h.validate({ ...config, 'connector.class': given ?? plugin });
  });
}
