/**
 * Listener and quorum-voter syntax, as Kafka writes them:
 *   listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://:9093,EXTERNAL://[::1]:9094
 *   listener.security.protocol.map=CONTROLLER:PLAINTEXT,EXTERNAL:SSL
 *   controller.quorum.voters=1@localhost:9093,2@10.0.0.2:9093
 * An empty host binds every interface. Port 0 binds an ephemeral port (tests);
 * the broker reports the bound port. Listener names are upper-cased, as
 * Kafka's ListenerName.normalised does.
 */

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

export interface Endpoint {
  /** Listener name, upper-case (PLAINTEXT, CONTROLLER, INTERNAL...). */
  readonly name: string;
  /** Host or IP to bind/advertise; '' = all interfaces. IPv6 without brackets. */
  readonly host: string;
  /** 0..65535; 0 = an ephemeral port chosen at bind time. */
  readonly port: number;
  readonly securityProtocol: SecurityProtocol;
}

export interface QuorumVoter {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

const ENDPOINT_RE = /^([A-Za-z0-9_-]+):\/\/(?:\[([0-9A-Fa-f:.%a-zA-Z]*)\]|([0-9A-Za-z\-%._]*)):(\d+)$/;
const VOTER_RE = /^(\d+)@(?:\[([0-9A-Fa-f:.%a-zA-Z]*)\]|([0-9A-Za-z\-%._]+)):(\d+)$/;

function portProblem(portText: string): string | undefined {
  const port = Number(portText);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? undefined : `port ${portText} is not in 0..65535`;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Parses `NAME://host:port` (name and protocol resolved later). */
export function parseEndpoint(text: string): Parsed<{ name: string; host: string; port: number }> {
  const m = ENDPOINT_RE.exec(text.trim());
  if (m === null) return { ok: false, reason: `"${text}" is not NAME://host:port` };
  const [, name = '', bracketed, plain, portText = ''] = m;
  const bad = portProblem(portText);
  if (bad !== undefined) return { ok: false, reason: bad };
  return { ok: true, value: { name: name.toUpperCase(), host: bracketed ?? plain ?? '', port: Number(portText) } };
}

/** Parses one `NAME:PROTOCOL` entry of listener.security.protocol.map. */
export function parseProtocolMapEntry(text: string): Parsed<[string, SecurityProtocol]> {
  const [name, protocol, ...rest] = text.split(':');
  if (name === undefined || name === '' || protocol === undefined || rest.length > 0) {
    return { ok: false, reason: `"${text}" is not NAME:PROTOCOL` };
  }
  const upper = protocol.toUpperCase();
  const known = SECURITY_PROTOCOLS.find((p) => p === upper);
  if (known === undefined) return { ok: false, reason: `unknown security protocol "${protocol}" (use ${SECURITY_PROTOCOLS.join(', ')})` };
  return { ok: true, value: [name.toUpperCase(), known] };
}

/** Parses one `id@host:port` entry of controller.quorum.voters. */
export function parseVoter(text: string): Parsed<QuorumVoter> {
  const m = VOTER_RE.exec(text.trim());
  if (m === null) return { ok: false, reason: `"${text}" is not id@host:port` };
  const [, idText = '', bracketed, plain, portText = ''] = m;
  const bad = portProblem(portText);
  if (bad !== undefined) return { ok: false, reason: bad };
  if (Number(portText) === 0) return { ok: false, reason: `voter "${text}" needs a real port, not 0` };
  const id = Number(idText);
  if (!Number.isSafeInteger(id) || id > 2 ** 31 - 1) return { ok: false, reason: `node id ${idText} is too large` };
  return { ok: true, value: { id, host: bracketed ?? plain ?? '', port: Number(portText) } };
}

/** `host:port`, with IPv6 hosts bracketed, and '' shown as 0.0.0.0 for clarity. */
export function formatHostPort(host: string, port: number): string {
  const shown = host === '' ? '0.0.0.0' : host;
  return shown.includes(':') ? `[${shown}]:${port}` : `${shown}:${port}`;
}

/** `NAME://host:port`, the form Kafka writes. */
export function formatEndpoint(e: { name: string; host: string; port: number }): string {
  return `${e.name}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
}
