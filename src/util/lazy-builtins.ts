/**
 * Node built-ins loaded on first use instead of at start-up. Each built-in
 * pages in part of the node binary (and compiles its JavaScript) that an idle
 * process then keeps resident: node:tls (OpenSSL's TLS code) about
 * 0.5-0.8 MiB in the broker, node:crypto 2.0 MiB loaded into a bare `node`.
 * A broker without TLS listeners, SASL or TLS links never needs either
 * (bench/README.md, "Idle RSS"); random ids come from util/secure-random.ts.
 */
import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';
import type * as Tls from 'node:tls';

// Any path serves: built-ins resolve without looking at it (and this module
// runs bundled too, where import.meta would name another place).
const load = createRequire(process.execPath);

let tls: typeof Tls | null = null;
let crypto: typeof Crypto | null = null;

/** node:tls, loaded the first time it is asked for. */
export function nodeTls(): typeof Tls {
  return (tls ??= load('node:tls') as typeof Tls);
}

/** node:crypto, loaded the first time it is asked for. */
export function nodeCrypto(): typeof Crypto {
  return (crypto ??= load('node:crypto') as typeof Crypto);
}
