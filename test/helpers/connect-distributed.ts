/**
 * Helpers for distributed Connect worker tests: worker properties for a
 * group on a test cluster, REST calls, and waiting for a condition.
 */
export function distributedProps(bootstrap: string, group: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'bootstrap.servers': bootstrap,
    listeners: 'http://127.0.0.1:0',
    'group.id': group,
    'config.storage.topic': `${group}-configs`,
    'offset.storage.topic': `${group}-offsets`,
    'status.storage.topic': `${group}-status`,
    'config.storage.replication.factor': '1',
    'offset.storage.replication.factor': '1',
    'status.storage.replication.factor': '1',
    'offset.storage.partitions': '3',
    'status.storage.partitions': '2',
    'offset.flush.interval.ms': '200',
    'session.timeout.ms': '6000',
    'heartbeat.interval.ms': '500',
    'scheduled.rebalance.max.delay.ms': '2000',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    ...extra,
  };
}

export interface RestAnswer {
  status: number;
  body: unknown;
}

export async function rest(base: string, method: string, path: string, body?: unknown): Promise<RestAnswer> {
  const init: RequestInit = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: res.status, body: parsed };
}

/** Retries a REST call while the group rebalances (409), as a client of Kafka Connect does. */
export async function restSettled(base: string, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<RestAnswer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await rest(base, method, path, body);
    if (answer.status !== 409 || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
