/**
 * The transaction traffic between brokers, over one connection per broker
 * to the endpoint it registered for `inter.broker.listener.name`:
 * - coordinator to partition leaders: WriteTxnMarkers v1 (the coordinator's
 *   own partitions too, as Kafka does: one path for every marker); the
 *   marker sender (src/coordinator/transaction/marker-sender.ts) owns the
 *   retries;
 * - partition leader to coordinator: AddPartitionsToTxn v4 with verifyOnly
 *   (KIP-890 part 1), for the leader's TransactionVerifier.
 * A connection that fails is dropped, so the next attempt reconnects to the
 * endpoint the metadata has then.
 */
import { Connection } from '../net/connection.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol/messages/27-write-txn-markers.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../protocol/messages/24-add-partitions-to-txn.js';
import { ErrorCode } from '../protocol/errors.js';
import { tpKey } from '../coordinator/transaction/state.js';
import type { MarkerTransport, WireMarker } from '../coordinator/transaction/marker-sender.js';
import type { BrokerEndpointLookup } from './replica-fetch-transport.js';

const WRITE_TXN_MARKERS_VERSION = 1;
const VERIFY_VERSION = 4;
const CONNECT_TIMEOUT_MS = 2_000;
/** A marker write waits for acks=all on the leader (Kafka's request.timeout.ms is 30 s). */
const REQUEST_TIMEOUT_MS = 30_000;
const RESPONSE_BYTES_MAX = 16 * 1024 * 1024;

interface Open {
  readonly host: string;
  readonly port: number;
  readonly connection: Promise<Connection>;
}

export class TxnBrokerChannel implements MarkerTransport {
  private readonly open = new Map<number, Open>();
  private closed = false;

  constructor(
    private readonly endpointOf: BrokerEndpointLookup,
    private readonly clientId: string,
  ) {}

  async writeTxnMarkers(leaderId: number, marker: WireMarker): Promise<Map<string, number>> {
    const open = this.connection(leaderId);
    const byTopic = new Map<string, number[]>();
    for (const tp of marker.partitions) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
    const request = {
      markers: [{
        producerId: marker.producerId,
        producerEpoch: marker.producerEpoch,
        transactionResult: marker.committed,
        topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
        coordinatorEpoch: marker.coordinatorEpoch,
      }],
    };
    try {
      const connection = await open.connection;
      const response = await connection.send({ request: WriteTxnMarkersRequest, response: WriteTxnMarkersResponse }, WRITE_TXN_MARKERS_VERSION, request, { timeoutMs: REQUEST_TIMEOUT_MS });
      const codes = new Map<string, number>();
      for (const m of response.markers) {
        if (m.producerId !== marker.producerId) continue;
        for (const t of m.topics) for (const p of t.partitions) codes.set(tpKey({ topic: t.name, partition: p.partitionIndex }), p.errorCode);
      }
      return codes;
    } catch (err) {
      this.drop(leaderId, open);
      throw err;
    }
  }

  /** AddPartitionsToTxn v4 verifyOnly for one partition to coordinator `coordinatorId`: the partition's error code. */
  async verify(coordinatorId: number, ref: { transactionalId: string; producerId: bigint; producerEpoch: number }, topic: string, partition: number): Promise<number> {
    const open = this.connection(coordinatorId);
    const request = { transactions: [{ ...ref, verifyOnly: true, topics: [{ name: topic, partitions: [partition] }] }] };
    try {
      const connection = await open.connection;
      const response = await connection.send({ request: AddPartitionsToTxnRequest, response: AddPartitionsToTxnResponse }, VERIFY_VERSION, request, { timeoutMs: REQUEST_TIMEOUT_MS });
      if (response.errorCode !== ErrorCode.NONE) return response.errorCode;
      const result = response.resultsByTransaction.find((t) => t.transactionalId === ref.transactionalId)?.topicResults.find((t) => t.name === topic)?.results.find((r) => r.partitionIndex === partition);
      return result?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    } catch (err) {
      this.drop(coordinatorId, open);
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    for (const [id, open] of [...this.open]) this.drop(id, open);
  }

  private connection(leaderId: number): Open {
    if (this.closed) throw new Error('the marker transport is closed');
    const endpoint = this.endpointOf(leaderId);
    if (endpoint === undefined) throw new Error(`broker ${leaderId} has no registered inter-broker endpoint`);
    const existing = this.open.get(leaderId);
    if (existing !== undefined && existing.host === endpoint.host && existing.port === endpoint.port) return existing;
    if (existing !== undefined) this.drop(leaderId, existing);
    const connection = Connection.connect({
      host: endpoint.host,
      port: endpoint.port,
      clientId: this.clientId,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_BYTES_MAX,
      negotiateVersions: false,
    });
    const open: Open = { ...endpoint, connection };
    this.open.set(leaderId, open);
    connection.catch(() => {
      if (this.open.get(leaderId) === open) this.open.delete(leaderId);
    });
    return open;
  }

  private drop(leaderId: number, open: Open): void {
    if (this.open.get(leaderId) === open) this.open.delete(leaderId);
    open.connection.then((c) => c.destroy(), () => undefined);
  }
}
