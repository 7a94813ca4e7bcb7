/**
 * Opening the TCP socket of a `Connection` (connection.ts): the connect
 * timeout, the errors of a failed connect, and the `onread` wiring that
 * reads received bytes straight into the `FrameReader`'s buffers. Separate
 * because it is the only part that deals with `net` before a Connection
 * exists.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions as TlsConnectOptions } from 'node:tls';
import { nodeTls } from '../util/lazy-builtins.js';
import type { TlsOptions } from './connection-options.js';
import { ClientErrorCode, ConnectionError, ProtocolError } from './errors.js';
import { FrameReader } from './frame-reader.js';

/**
 * How received bytes reach the Connection: the socket reads straight into
 * `reader`'s buffers (net.Socket `onread`, no 'data' events) and reports each
 * read to `deliver`. The Connection sets `deliver` in the microtask after
 * 'connect', before any read can complete; bytes before that (a server
 * talking first) are a protocol violation and close the connection.
 */
export interface SocketInput {
  readonly reader: FrameReader;
  deliver: ((n: number) => void) | null;
}

export function socketInput(maxResponseBytes: number): SocketInput {
  return { reader: new FrameReader(maxResponseBytes), deliver: null };
}

/**
 * Opens the TCP (or, with `tls`, TLS) connection. With TLS the promise
 * resolves after the handshake, once the server certificate is verified;
 * decrypted bytes reach the FrameReader through the same `onread` buffers.
 */
export function openSocket(host: string, port: number, timeoutMs: number, input: SocketInput, tls?: TlsOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const onread = {
      buffer: () => input.reader.readBuffer(),
      callback: (n: number) => {
        if (input.deliver !== null) {
          input.deliver(n);
          return true;
        }
        socket.destroy(new ProtocolError(ClientErrorCode.PROTOCOL, `${host}:${port} sent data before any request`));
        return false;
      },
    };
    // SNI takes a host name, never an IP address (RFC 6066).
    const socket: Socket = tls === undefined
      ? netConnect({ host, port, onread })
      : nodeTls().connect({ ...(isIP(host) === 0 ? { servername: host } : {}), ...tls, host, port, onread } as TlsConnectOptions); // node's typings lack tls.connect's onread
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ConnectionError(ClientErrorCode.CONNECTION_TIMEOUT, `could not connect to ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(tls === undefined ? 'connect' : 'secureConnect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const why = err.code === 'ECONNREFUSED' ? 'connection refused (is the broker running?)' : tls !== undefined ? `TLS: ${err.message}` : err.message;
      reject(new ConnectionError(ClientErrorCode.CONNECTION, `could not connect to ${host}:${port}: ${why}`, { cause: err }));
    });
  });
}
