/**
 * A logical replication connection: a `pg` client started with
 * `replication: 'database'`, which runs `START_REPLICATION SLOT ... LOGICAL
 * <lsn> (proto_version '1', publication_names '...')` and then receives
 * CopyData messages (queued here, decoded by the caller) until it is closed.
 * Keepalives that ask for a reply are answered with the acknowledged LSN;
 * `acknowledge(lsn)` moves that LSN and tells the server at once, so the
 * slot may free WAL up to it and a later START_REPLICATION resumes there.
 */
import pg from 'pg';
import { clientConfig, type PgTarget } from './connection.js';
import { decodeStreamMessage, encodeStandbyStatus, formatLsn, type StreamMessage } from './pgoutput.js';

/** Status updates are sent at least this often, well inside the default wal_sender_timeout (60 s). */
const STATUS_INTERVAL_MS = 10_000;

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export class ReplicationStream {
  private readonly queue: StreamMessage[] = [];
  private waiter: (() => void) | null = null;
  private failure: Error | null = null;
  private ended = false;
  private acked: bigint;
  private lastStatusMs = 0;
  private statusTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly client: pg.Client,
    startLsn: bigint,
  ) {
    this.acked = startLsn;
  }

  /** Connects and starts streaming the slot from startLsn (0: the slot's confirmed position). */
  static async start(target: PgTarget, slot: string, publication: string, startLsn: bigint): Promise<ReplicationStream> {
    const client = new pg.Client({ ...clientConfig(target), replication: 'database' } as pg.ClientConfig);
    client.on('error', () => undefined);
    await client.connect();
    const stream = new ReplicationStream(client, startLsn);
    const connection = (client as unknown as { connection: { on(e: 'copyData', f: (m: { chunk: Buffer }) => void): void } }).connection;
    connection.on('copyData', (m) => stream.onData(m.chunk));
    client.on('error', (err: Error) => stream.fail(err));
    client.on('end', () => stream.fail(new Error('Connection terminated: the replication connection ended')));
    const sql = `START_REPLICATION SLOT "${slot.replace(/"/g, '""')}" LOGICAL ${formatLsn(startLsn)} (proto_version '1', publication_names ${quoteLiteral(`"${publication.replace(/"/g, '""')}"`)})`;
    // The query lasts as long as the stream: it settles only when the stream ends.
    client.query(sql).then(
      () => stream.fail(new Error('Connection terminated: the replication stream ended')),
      (err: Error) => stream.fail(err),
    );
    stream.statusTimer = setInterval(() => stream.sendStatus(false), STATUS_INTERVAL_MS);
    stream.statusTimer.unref();
    return stream;
  }

  private onData(chunk: Buffer): void {
    let msg: StreamMessage;
    try {
      msg = decodeStreamMessage(chunk);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (msg.kind === 'keepalive') {
      if (msg.replyRequested) this.sendStatus(true);
      return;
    }
    this.queue.push(msg);
    this.wake();
  }

  private fail(err: Error): void {
    if (this.ended) return;
    this.failure ??= err;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** The queued messages (at most max), waiting up to waitMs for the first; throws the stream's failure once the queue is empty. */
  async take(max: number, waitMs: number): Promise<StreamMessage[]> {
    if (this.queue.length === 0 && this.failure === null && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.wake(), waitMs);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (this.queue.length === 0 && this.failure !== null) throw this.failure;
    return this.queue.splice(0, max);
  }

  /** The LSN acknowledged to the server so far. */
  get acknowledged(): bigint {
    return this.acked;
  }

  /** Acknowledges everything up to lsn (flushed and applied) to the slot. */
  acknowledge(lsn: bigint): void {
    if (lsn <= this.acked) return;
    this.acked = lsn;
    this.sendStatus(true);
  }

  private sendStatus(force: boolean): void {
    if (this.ended || this.failure !== null) return;
    const now = Date.now();
    if (!force && now - this.lastStatusMs < 100 && this.lastStatusMs !== 0) return;
    this.lastStatusMs = now;
    const conn = (this.client as unknown as { connection: { sendCopyFromChunk(b: Buffer): void } }).connection;
    try {
      conn.sendCopyFromChunk(encodeStandbyStatus(this.acked, BigInt(now) * 1000n));
    } catch (err) {
      this.fail(err as Error);
    }
  }

  /** Ends the connection (the server keeps the slot at the acknowledged LSN). */
  async close(): Promise<void> {
    if (this.statusTimer !== null) clearInterval(this.statusTimer);
    if (this.failure === null) this.sendStatus(true);
    this.ended = true;
    this.wake();
    await this.client.end().catch(() => undefined);
  }
}
