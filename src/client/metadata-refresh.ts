/**
 * One metadata refresh at a time for a client that routes by partition
 * leader (the Producer's sender), with a backoff between refreshes that did
 * not help: while a leader is being elected every refresh answers "no
 * leader" (or the old, dead one), and refreshing again at once would spin
 * on the network. As the Java client (KIP-580), the wait after a refresh
 * is `retryBackoffMs` doubled per refresh since the last progress, at most
 * `backoffMsMax`; `progress()` (a request answered by a leader) resets it.
 *
 * A request that arrives while a refresh runs or during the wait is
 * remembered and served once, when the wait is over; `onRefreshed` runs after
 * every refresh (success or failure) so the caller re-routes what waits.
 */
import type { Cluster } from './cluster.js';

export interface MetadataRefresherOptions {
  cluster: Cluster;
  /** The topics to refresh (those the client routes). */
  topics: () => string[];
  /** Runs after each refresh, whether it succeeded or not. */
  onRefreshed: () => void;
  retryBackoffMs: number;
  backoffMsMax: number;
}

export class MetadataRefresher {
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Refreshes since the last progress: the exponent of the next wait. */
  private unproductive = 0;
  /** Epoch ms before which no refresh starts. */
  private notBeforeMs = 0;
  private wanted = false;
  private closed = false;

  constructor(private readonly options: MetadataRefresherOptions) {}

  /** Asks for a refresh: now if none runs and the backoff is over, else once it is. */
  request(): void {
    if (this.closed) return;
    this.wanted = true;
    if (this.running !== null || this.timer !== null) return;
    const waitMs = this.notBeforeMs - Date.now();
    if (waitMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.start();
      }, waitMs);
      return;
    }
    this.start();
  }

  /** A leader answered: the next refresh may go at once. */
  progress(): void {
    this.unproductive = 0;
    this.notBeforeMs = 0;
  }

  /** The refresh under way, if any (close() waits for it). */
  get pending(): Promise<void> | null {
    return this.running;
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private start(): void {
    if (this.closed || !this.wanted || this.running !== null) return;
    this.wanted = false;
    const { cluster, retryBackoffMs, backoffMsMax } = this.options;
    this.running = cluster
      .refreshMetadata(this.options.topics())
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.running = null;
        this.notBeforeMs = Date.now() + Math.min(retryBackoffMs * 2 ** this.unproductive, backoffMsMax);
        this.unproductive = Math.min(this.unproductive + 1, 30);
        if (this.closed) return;
        this.options.onRefreshed();
        if (this.wanted) this.request();
      });
  }
}
