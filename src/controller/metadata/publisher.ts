/**
 * Keeps the MetadataImage current and tells subscribers what changed.
 *
 * It is the MetadataLog's commit listener: each committed batch is applied to
 * the image and the resulting delta published. While the log replays at boot
 * nothing is published; when the replay ends (`finishLoad`) every subscriber
 * gets one initial delta describing the whole image, and later subscribers get
 * theirs when they subscribe. So a subscriber always sees "everything so far"
 * once, then each change, without caring when it subscribed.
 *
 * A subscriber that throws does not stop the others, nor fail the log (the
 * batch is committed whatever a subscriber thinks): the error goes to
 * `onListenerError`.
 */
import type { MetadataBatch } from './batch.js';
import { isEmptyDelta, type MetadataDelta } from './delta.js';
import type { MetadataImage } from './image.js';

export type DeltaListener = (delta: MetadataDelta, image: MetadataImage) => void;

export class MetadataPublisher {
  private readonly listeners = new Set<DeltaListener>();
  private loading = true;

  constructor(
    readonly image: MetadataImage,
    private readonly onListenerError: (err: unknown) => void,
  ) {}

  /** The MetadataLog commit listener. */
  readonly handleCommit = (batch: MetadataBatch): void => {
    const delta = this.image.apply(batch);
    if (this.loading || isEmptyDelta(delta)) return;
    for (const l of [...this.listeners]) this.deliver(l, delta);
  };

  /** The replay is over: publish the loaded image to the subscribers so far. */
  finishLoad(): void {
    if (!this.loading) return;
    this.loading = false;
    const initial = this.image.toInitialDelta();
    for (const l of [...this.listeners]) this.deliver(l, initial);
  }

  get loaded(): boolean {
    return !this.loading;
  }

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: DeltaListener): () => void {
    this.listeners.add(listener);
    if (!this.loading) this.deliver(listener, this.image.toInitialDelta());
    return () => {
      this.listeners.delete(listener);
    };
  }

  private deliver(listener: DeltaListener, delta: MetadataDelta): void {
    try {
      listener(delta, this.image);
    } catch (err) {
      this.onListenerError(err);
    }
  }
}
