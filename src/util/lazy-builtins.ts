/**
 * Node built-ins loaded on first use instead of at start-up. Loading
 * node:tls pages in part of the node binary (OpenSSL's TLS code) that an idle
 * process then keeps resident, about 0.5-0.8 MiB; a broker without TLS
 * listeners or TLS links never needs it (bench/README.md, "Idle RSS").
 */
import { createRequire } from 'node:module';
import type * as Tls from 'node:tls';

// Any path serves: built-ins resolve without looking at it (and this module
// runs bundled too, where import.meta would name another place).
const load = createRequire(process.execPath);

let tls: typeof Tls | null = null;

/** node:tls, loaded the first time it is asked for. */
export function nodeTls(): typeof Tls {
  return (tls ??= load('node:tls') as typeof Tls);
}
