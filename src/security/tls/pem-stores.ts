/**
 * Kafka's PEM key and trust stores, read from the `ssl.*` keys of a broker
 * config or of a client properties file (the same names on both sides):
 *
 * - key store: `ssl.keystore.location` (a PEM file holding the private key
 *   and its certificate chain) or inline `ssl.keystore.key` +
 *   `ssl.keystore.certificate.chain`; an encrypted key is opened with
 *   `ssl.key.password`;
 * - trust store: `ssl.truststore.location` (PEM certificates) or inline
 *   `ssl.truststore.certificates`;
 * - `ssl.keystore.type`/`ssl.truststore.type` must be PEM when set: JKS and
 *   PKCS12 are refused with the conversion to use.
 *
 * Inline PEM in a properties file often loses its line breaks (a value
 * continued with `\` is joined), so every block is re-wrapped before node
 * reads it, as Kafka's PEM parser tolerates it. Problems are thrown as
 * TlsConfigError naming the key; secrets are never echoed.
 */
import { readFileSync } from 'node:fs';
import { nodeCrypto } from '../../util/lazy-builtins.js';

export class TlsConfigError extends Error {
  constructor(readonly key: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TlsConfigError';
  }
}

/** The PEM material node:tls takes (SecureContextOptions names). */
export interface PemStores {
  /** The private key (PEM); absent without a key store. */
  readonly key?: string;
  readonly passphrase?: string;
  /** The certificate chain, leaf first (PEM). */
  readonly cert?: string;
  /** Trusted CA certificates (PEM); absent = node's bundled CAs. */
  readonly ca?: string;
}

/** A key lookup: the value of an `ssl.*` key, or undefined when not set. */
export type SslKeyLookup = (key: string) => string | undefined;

const BLOCK_RE = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

interface PemBlock {
  readonly label: string;
  readonly text: string;
}

/** Every PEM block of a text, each re-wrapped at 64 columns. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK_RE)) {
    const label = m[1] as string;
    const body = (m[2] as string).replace(/\\n/g, '').replace(/\s+/g, '');
    // Encrypted traditional keys carry "Proc-Type:"/"DEK-Info:" headers; keep those blocks verbatim.
    const lines = /:/.test(m[2] as string) ? (m[2] as string).trim() : (body.match(/.{1,64}/g) ?? []).join('\n');
    out.push({ label, text: `-----BEGIN ${label}-----\n${lines}\n-----END ${label}-----\n` });
  }
  return out;
}

function checkType(get: SslKeyLookup, key: 'ssl.keystore.type' | 'ssl.truststore.type', origin: string): void {
  const type = get(key);
  if (type === undefined || type.toUpperCase() === 'PEM') return;
  const file = key === 'ssl.keystore.type' ? 'ssl.keystore.location' : 'ssl.truststore.location';
  throw new TlsConfigError(key, `${origin}${key}=${type} is not supported: only PEM stores are read. Convert it, e.g. \`keytool -importkeystore -srckeystore store.jks -destkeystore store.p12 -deststoretype PKCS12\` then \`openssl pkcs12 -in store.p12 -out store.pem\`, and set ${key}=PEM and ${file} to the PEM file`);
}

function readPemFile(key: string, path: string, origin: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new TlsConfigError(key, `${origin}${key}: cannot read ${path} (${reason})`, { cause: err });
  }
}

function keyStore(get: SslKeyLookup, origin: string): { key: string; cert: string; passphrase?: string } | undefined {
  const location = get('ssl.keystore.location');
  const inlineKey = get('ssl.keystore.key');
  const inlineChain = get('ssl.keystore.certificate.chain');
  if (location !== undefined && (inlineKey !== undefined || inlineChain !== undefined)) {
    throw new TlsConfigError('ssl.keystore.location', `${origin}set either ssl.keystore.location or ssl.keystore.key with ssl.keystore.certificate.chain, not both`);
  }
  if (location === undefined && inlineKey === undefined && inlineChain === undefined) return undefined;
  if (location === undefined && (inlineKey === undefined || inlineChain === undefined)) {
    throw new TlsConfigError(inlineKey === undefined ? 'ssl.keystore.key' : 'ssl.keystore.certificate.chain', `${origin}ssl.keystore.key and ssl.keystore.certificate.chain go together`);
  }
  const where = location === undefined ? 'ssl.keystore.key' : 'ssl.keystore.location';
  const blocks = location === undefined ? [...pemBlocks(inlineKey ?? ''), ...pemBlocks(inlineChain ?? '')] : pemBlocks(readPemFile(where, location, origin));
  const keyBlock = blocks.find((b) => b.label.endsWith('PRIVATE KEY'));
  const certs = blocks.filter((b) => b.label === 'CERTIFICATE');
  if (keyBlock === undefined) throw new TlsConfigError(where, `${origin}${where}${location === undefined ? '' : ` (${location})`} holds no PEM private key (-----BEGIN PRIVATE KEY-----)`);
  if (certs.length === 0) throw new TlsConfigError(where, `${origin}${location === undefined ? 'ssl.keystore.certificate.chain' : `${where} (${location})`} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const passphrase = get('ssl.key.password');
  try {
    nodeCrypto().createPrivateKey(passphrase === undefined ? { key: keyBlock.text, format: 'pem' } : { key: keyBlock.text, format: 'pem', passphrase });
  } catch (err) {
    const why = passphrase === undefined ? 'the key is encrypted: set ssl.key.password' : 'wrong ssl.key.password?';
    throw new TlsConfigError('ssl.key.password', `${origin}cannot open the private key of ${where} (${why})`, { cause: err });
  }
  return { key: keyBlock.text, cert: certs.map((c) => c.text).join(''), ...(passphrase === undefined ? {} : { passphrase }) };
}

function trustStore(get: SslKeyLookup, origin: string): string | undefined {
  const location = get('ssl.truststore.location');
  const inline = get('ssl.truststore.certificates');
  if (location !== undefined && inline !== undefined) throw new TlsConfigError('ssl.truststore.location', `${origin}set either ssl.truststore.location or ssl.truststore.certificates, not both`);
  if (location === undefined && inline === undefined) return undefined;
  const where = location === undefined ? 'ssl.truststore.certificates' : 'ssl.truststore.location';
  const certs = pemBlocks(location === undefined ? (inline ?? '') : readPemFile(where, location, origin)).filter((b) => b.label === 'CERTIFICATE');
  if (certs.length === 0) throw new TlsConfigError(where, `${origin}${where}${location === undefined ? '' : ` (${location})`} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return certs.map((c) => c.text).join('');
}

/**
 * Reads the key store and trust store the keys describe. `origin` prefixes
 * messages (e.g. "listener SSL: "). Throws TlsConfigError.
 */
export function readPemStores(get: SslKeyLookup, origin = ''): PemStores {
  checkType(get, 'ssl.keystore.type', origin);
  checkType(get, 'ssl.truststore.type', origin);
  const keys = keyStore(get, origin);
  const ca = trustStore(get, origin);
  return { ...(keys ?? {}), ...(ca === undefined ? {} : { ca }) };
}
