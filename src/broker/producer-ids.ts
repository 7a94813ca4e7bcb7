/**
 * Producer ids on this broker (the idempotent half of Kafka's transaction
 * coordinator and its ProducerIdManager): hands out ids from a block the
 * controller allocated (ProducerIdsRecord, 1000 ids), asks for the next block
 * when 90% of the current one is used (one request in flight at a time), and
 * remembers the current epoch of each id it handed out or bumped, so that
 * InitProducerId v3+ can bump an epoch (KIP-360).
 *
 * Epoch bump rules (InitProducerId with producerId/producerEpoch set):
 *   - the id is one this broker knows and the epoch is its current one: the
 *     epoch goes up by one; at Int16 max - 1 (Kafka's "epoch exhausted") the
 *     producer gets a new id at epoch 0 instead;
 *   - known id, other epoch: PRODUCER_FENCED (v4+) or INVALID_PRODUCER_EPOCH
 *     (v3, which predates PRODUCER_FENCED; KIP-588);
 *   - an id this broker does not know (issued before a restart, or expired):
 *     a new id at epoch 0, which is what Kafka answers every idempotent
 *     producer. The partitions accept a new id at any sequence (KIP-360).
 * The known epochs are in memory only, bounded (KNOWN_PRODUCERS_MAX, least
 * recently used dropped first) and expired with producer.id.expiration.ms.
 *
 * Where blocks come from: the source is the node's MetadataService. On a
 * cluster node that is wrapped by routeMetadataChanges
 * (controller-channel.ts): the local controller's allocation while this node
 * is the active controller, else AllocateProducerIds (67) to the active
 * controller, retried while an election is on (up to 8 s). Until a block
 * arrives InitProducerId answers COORDINATOR_LOAD_IN_PROGRESS (retriable).
 */
import { ErrorCode } from '../protocol/errors.js';

/** Producer ids whose epoch this broker remembers for epoch bumps. */
export const KNOWN_PRODUCERS_MAX = 100_000;
/** Kafka's "epoch exhausted" point: an epoch this high is not bumped, the producer gets a new id. */
export const EPOCH_BUMP_MAX = 0x7fff - 1;

export interface ProducerIdBlockSource {
  allocateProducerIds(): Promise<{ errorCode: number; errorMessage: string | null; firstProducerId: bigint; size: number }>;
}

export interface InitProducerIdResult {
  errorCode: number;
  producerId: bigint;
  producerEpoch: number;
  /** Why, for the log, when errorCode is not NONE. */
  message: string | null;
}

interface Known {
  epoch: number;
  lastUsedMs: number;
}

export class ProducerIdManager {
  private next = 0n;
  private end = 0n;
  private size = 0;
  private pending: Promise<string | null> | null = null;
  /** The block fetched ahead, used when the current one runs out. */
  private queued: { firstProducerId: bigint; size: number } | null = null;
  private readonly known = new Map<bigint, Known>();

  constructor(private readonly source: ProducerIdBlockSource) {}

  /** Producer ids whose current epoch is known here. */
  get knownProducers(): number {
    return this.known.size;
  }

  /**
   * InitProducerId for an idempotent producer (no transactional id).
   * `producerId`/`producerEpoch` are -1 for a new producer (and before v3).
   */
  async initProducerId(producerId: bigint, producerEpoch: number, apiVersion: number, nowMs: number): Promise<InitProducerIdResult> {
    if ((producerId === -1n) !== (producerEpoch === -1)) {
      return { errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1, message: 'producerId and producerEpoch must both be set or both be -1' };
    }
    if (producerId >= 0n) {
      const k = this.known.get(producerId);
      if (k !== undefined) {
        if (k.epoch !== producerEpoch) {
          const errorCode = apiVersion >= 4 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
          return { errorCode, producerId: -1n, producerEpoch: -1, message: `producer ${producerId} is at epoch ${k.epoch}, not ${producerEpoch}` };
        }
        if (k.epoch < EPOCH_BUMP_MAX) {
          this.remember(producerId, k.epoch + 1, nowMs);
          return { errorCode: ErrorCode.NONE, producerId, producerEpoch: k.epoch + 1, message: null };
        }
        this.known.delete(producerId);
      }
    }
    const id = await this.newProducerId();
    if (typeof id === 'string') return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, producerId: -1n, producerEpoch: -1, message: id };
    this.remember(id, 0, nowMs);
    return { errorCode: ErrorCode.NONE, producerId: id, producerEpoch: 0, message: null };
  }

  /**
   * A fresh id for the transaction coordinator (a transactional id's
   * producer): the same blocks, so ids never collide with idempotent ones.
   */
  async allocateProducerId(): Promise<bigint | { errorCode: number }> {
    const id = await this.newProducerId();
    return typeof id === 'string' ? { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS } : id;
  }

  /** Forgets the epochs of producers not seen for `expirationMs`; returns how many. */
  removeExpired(nowMs: number, expirationMs: number): number {
    let removed = 0;
    for (const [id, k] of this.known) {
      if (nowMs - k.lastUsedMs >= expirationMs) {
        this.known.delete(id);
        removed++;
      }
    }
    return removed;
  }

  private remember(producerId: bigint, epoch: number, nowMs: number): void {
    this.known.delete(producerId);
    this.known.set(producerId, { epoch, lastUsedMs: nowMs });
    if (this.known.size > KNOWN_PRODUCERS_MAX) {
      const oldest = this.known.keys().next();
      if (oldest.done !== true) this.known.delete(oldest.value);
    }
  }

  /** The next unused id, fetching a block when needed; a string says why none could be had. */
  private async newProducerId(): Promise<bigint | string> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.next >= this.end && this.queued !== null) {
        this.next = this.queued.firstProducerId;
        this.end = this.queued.firstProducerId + BigInt(this.queued.size);
        this.size = this.queued.size;
        this.queued = null;
      }
      if (this.next < this.end) {
        const id = this.next++;
        // Prefetch at 90% so producers rarely wait for the controller.
        if (this.queued === null && this.end - this.next < BigInt(Math.ceil(this.size / 10))) void this.fetchBlock();
        return id;
      }
      const problem = await this.fetchBlock();
      if (problem !== null) return problem;
    }
    return 'no producer id block available';
  }

  /** Fetches the next block into `queued` (one request at a time); resolves to null or a problem. */
  private fetchBlock(): Promise<string | null> {
    this.pending ??= this.source
      .allocateProducerIds()
      .then((block) => {
        if (block.errorCode !== ErrorCode.NONE || block.size <= 0) return `the controller gave no producer id block: ${block.errorMessage ?? `error ${block.errorCode}`}`;
        this.queued = { firstProducerId: block.firstProducerId, size: block.size };
        return null;
      })
      .catch((err: unknown) => `the controller gave no producer id block: ${err instanceof Error ? err.message : String(err)}`)
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }
}
