/**
 * A follower hands a connector's new task configs to the leader over the
 * leader's REST API (Kafka's internal POST /connectors/{name}/tasks),
 * retrying with backoff while the group rebalances (409) or the leader is
 * not known yet, as Kafka's herder retries task reconfiguration.
 */
const ATTEMPTS_MAX = 10;
const BACKOFF_MS_FIRST = 250;
const REQUEST_TIMEOUT_MS = 30_000;

export async function sendTaskConfigs(leaderUrl: () => string | null, name: string, configs: readonly Record<string, string>[]): Promise<void> {
  let backoffMs = BACKOFF_MS_FIRST;
  let last = 'the leader is not known';
  for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
    const url = leaderUrl();
    if (url !== null) {
      try {
        const res = await fetch(`${url.replace(/\/$/, '')}/connectors/${encodeURIComponent(name)}/tasks?forward=true`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(configs),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        if (res.ok) return;
        last = `${res.status} ${await res.text()}`;
        // 404: the connector was deleted meanwhile; 400: a bad request that a retry will not fix.
        if (res.status === 404 || res.status === 400) throw new Error(last);
      } catch (err) {
        if (err instanceof Error && err.message === last) throw err;
        last = (err as Error).message;
      }
    }
    await new Promise((r) => setTimeout(r, backoffMs));
    backoffMs = Math.min(backoffMs * 2, 5_000);
  }
  throw new Error(`could not hand the task configs of ${name} to the leader: ${last}`);
}
