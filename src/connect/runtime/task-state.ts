/**
 * The state of a connector or task as the status endpoints report it
 * (Kafka's AbstractStatus.State), with pause/resume wake-ups for the task
 * loops and the failure trace shown on FAILED.
 */
export type ConnectState = 'UNASSIGNED' | 'RUNNING' | 'PAUSED' | 'FAILED' | 'RESTARTING' | 'STOPPED';

export class TaskLifecycle {
  state: ConnectState = 'UNASSIGNED';
  trace: string | null = null;
  private resumeWaiters: (() => void)[] = [];

  constructor(private readonly onChange: (state: ConnectState, trace: string | null) => void = () => undefined) {}

  set(state: ConnectState, trace: string | null = null): void {
    this.state = state;
    this.trace = state === 'FAILED' ? trace : null;
    if (state !== 'PAUSED') for (const w of this.resumeWaiters.splice(0)) w();
    this.onChange(state, this.trace);
  }

  fail(error: unknown): void {
    const e = error instanceof Error ? error : new Error(String(error));
    this.set('FAILED', traceOf(e));
  }

  /** Resolves once the state is no longer PAUSED. */
  async whilePaused(): Promise<void> {
    while (this.state === 'PAUSED') await new Promise<void>((resolve) => this.resumeWaiters.push(resolve));
  }

  /** Wakes a loop waiting in whilePaused (on stop). */
  wake(): void {
    for (const w of this.resumeWaiters.splice(0)) w();
  }
}

/** An error and its causes as one stack trace text, like Java's printStackTrace. */
export function traceOf(error: Error): string {
  let text = error.stack ?? `${error.name}: ${error.message}`;
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    text += `\nCaused by: ${cause.stack ?? cause.message}`;
    cause = cause.cause;
  }
  return text;
}
