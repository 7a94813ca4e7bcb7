/**
 * `metrics.listeners` entries (`http://host:port`, validated by the config
 * layer) as host and port. An empty host binds every interface, as Kafka's
 * `listeners` do; port 0 takes an ephemeral port (tests).
 */
export interface HttpEndpoint {
  readonly host: string;
  readonly port: number;
}

const ENDPOINT = /^http:\/\/(\[[0-9A-Fa-f:.]*\]|[0-9A-Za-z\-._]*):(\d{1,5})$/;

/** Parses one `http://host:port`; throws a message naming the entry when it is not one. */
export function parseHttpEndpoint(s: string): HttpEndpoint {
  const m = ENDPOINT.exec(s.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new Error(`metrics listener "${s}" is not http://host:port`);
  const raw = m[1] ?? '';
  const host = raw.startsWith('[') ? raw.slice(1, -1) : raw;
  return { host, port };
}

/** `http://host:port` for a bound endpoint (IPv6 hosts bracketed; an empty host shown as 0.0.0.0). */
export function formatHttpEndpoint(e: HttpEndpoint): string {
  const host = e.host === '' ? '0.0.0.0' : e.host.includes(':') ? `[${e.host}]` : e.host;
  return `http://${host}:${e.port}`;
}
