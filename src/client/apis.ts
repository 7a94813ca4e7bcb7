/**
 * The APIs the client speaks, with the version range it implements for each.
 * The codec handles every version of a schema, but a version is listed here
 * only when the code that builds requests and reads responses handles its
 * field differences. The version used on a connection is the highest common
 * one (`Connection.pickVersion`), clamped to what the schema defines.
 */
import type { Infer, Input, MessageSchema } from '../protocol/schema.js';
import {
  CreatePartitionsRequest,
  CreatePartitionsResponse,
  CreateTopicsRequest,
  CreateTopicsResponse,
  DeleteTopicsRequest,
  DeleteTopicsResponse,
  DescribeConfigsRequest,
  DescribeConfigsResponse,
  FetchRequest,
  FetchResponse,
  InitProducerIdRequest,
  InitProducerIdResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  MetadataRequest,
  MetadataResponse,
  MirrorAppendRequest,
  MirrorAppendResponse,
  ProduceRequest,
  ProduceResponse,
} from '../protocol/messages/index.js';
import type { ApiPair, Connection } from '../net/connection.js';

/** An API the client speaks: its request/response schemas and the version range the client implements. */
export interface ClientApi<Req extends MessageSchema = MessageSchema, Res extends MessageSchema = MessageSchema> extends ApiPair<Req, Res> {
  readonly minVersion: number;
  readonly maxVersion: number;
}

export function api<Req extends MessageSchema, Res extends MessageSchema>(request: Req, response: Res, minVersion: number, maxVersion: number): ClientApi<Req, Res> {
  return { request, response, minVersion, maxVersion: Math.min(maxVersion, request.maxVersion, response.maxVersion) };
}

export const Apis = {
  /** v3+: record batch v2 (magic 2), transactionalId. */
  Produce: api(ProduceRequest, ProduceResponse, 3, 7),
  /** v4+: isolationLevel, lastStableOffset, abortedTransactions. */
  Fetch: api(FetchRequest, FetchResponse, 4, 12),
  /** v1+: one offset per partition by timestamp. */
  ListOffsets: api(ListOffsetsRequest, ListOffsetsResponse, 1, 5),
  /** v1+: a null topic list means all topics; v10+: topic ids. */
  Metadata: api(MetadataRequest, MetadataResponse, 1, 12),
  CreateTopics: api(CreateTopicsRequest, CreateTopicsResponse, 1, 7),
  DeleteTopics: api(DeleteTopicsRequest, DeleteTopicsResponse, 1, 6),
  CreatePartitions: api(CreatePartitionsRequest, CreatePartitionsResponse, 0, 3),
  /** v1+: configSource instead of isDefault. */
  DescribeConfigs: api(DescribeConfigsRequest, DescribeConfigsResponse, 1, 4),
  /** v0-v2: a new producer id; v3+: the current id and epoch, to bump the epoch (KIP-360); v4: PRODUCER_FENCED. */
  InitProducerId: api(InitProducerIdRequest, InitProducerIdResponse, 0, 4),
  /** Tributary's own (key 10000): exact-mode mirror appends (mirror-records.ts). */
  MirrorAppend: api(MirrorAppendRequest, MirrorAppendResponse, 0, 0),
} as const;

/** The version to use for `api` on `connection`. */
export function versionFor(connection: Connection, api: ClientApi): number {
  return connection.pickVersion(api.request.apiKey, api.minVersion, api.maxVersion);
}

/** True when the broker advertises `api` in a range overlapping ours. */
export function supports(connection: Connection, api: ClientApi): boolean {
  const broker = connection.apiVersions.get(api.request.apiKey);
  if (broker === undefined) return connection.apiVersions.size === 0;
  return broker.maxVersion >= api.minVersion && broker.minVersion <= api.maxVersion;
}

/** Negotiates the version, builds the body for it and sends it. */
export async function request<Req extends MessageSchema, Res extends MessageSchema>(
  connection: Connection,
  api: ClientApi<Req, Res>,
  body: (version: number) => Input<Req>,
  timeoutMs?: number,
): Promise<{ version: number; response: Infer<Res> }> {
  const version = versionFor(connection, api);
  const response = await connection.send(api, version, body(version), timeoutMs === undefined ? {} : { timeoutMs });
  return { version, response };
}
