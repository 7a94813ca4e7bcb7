/**
 * An in-process broker for integration tests, and a raw connection that
 * speaks our codec and records responses in arrival order (for tests of the
 * network layer's ordering rules).
 */
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runBroker, type RunningBroker } from '../../src/broker/broker.js';
import { settingsFromConfig } from '../../src/broker/settings.js';
import { parseBrokerConfig } from '../../src/config/broker.js';
import { compile, isFlexible } from '../../src/protocol/codec.js';
import { Writer } from '../../src/protocol/primitives/writer.js';
import { Reader } from '../../src/protocol/primitives/reader.js';
import { readResponseHeader, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../../src/protocol/headers.js';
import { apiSchemas } from '../../src/protocol/messages/index.js';
import type { MessageSchema } from '../../src/protocol/schema.js';
import { errorLogOf } from './broker-process.js';

export interface InProcessBroker {
  broker: RunningBroker;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts a broker in this process on an ephemeral port with a temp data dir.
 * Its error-level logs are kept, and stop() throws if there were any not on
 * `allowErrorLogs` (as BrokerProcess.cleanup() does for a child broker).
 */
export async function startInProcessBroker(overrides: Record<string, string> = {}, allowErrorLogs: readonly RegExp[] = []): Promise<InProcessBroker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trib-inproc-'));
  const config = parseBrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:0', 'log.dirs': dataDir, ...overrides });
  const errors: string[] = [];
  const sink = {
    write(line: string): void {
      const entry = errorLogOf(line.trimEnd());
      if (entry !== null && !allowErrorLogs.some((re) => re.test(entry.detail))) errors.push(entry.detail);
    },
  };
  const broker = await runBroker(settingsFromConfig(config), pino({ level: 'error' }, sink));
  const port = (broker.boundAddresses[0] as { port: number }).port;
  return {
    broker,
    port,
    dataDir,
    async stop() {
      await broker.stop('test done');
      rmSync(dataDir, { recursive: true, force: true });
      if (errors.length > 0) throw new Error(`in-process broker logged ${errors.length} error(s): ${errors.splice(0).slice(0, 5).join(' | ')}`);
    },
  };
}

/** A raw connection that records responses (correlation id + body) in arrival order. */
export class RawClient {
  readonly arrivals: { correlationId: number; body: Buffer; atMs: number }[] = [];
  private buffered = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4) {
        const size = this.buffered.readInt32BE(0);
        if (this.buffered.length < 4 + size) break;
        const frame = this.buffered.subarray(4, 4 + size);
        this.buffered = this.buffered.subarray(4 + size);
        this.arrivals.push({ correlationId: frame.readInt32BE(0), body: frame, atMs: performance.now() });
      }
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = createConnection({ host: '127.0.0.1', port }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  send(apiKey: number, version: number, correlationId: number, body: unknown): void {
    const schemas = apiSchemas.get(apiKey);
    assert.ok(schemas);
    const w = new Writer();
    const size = w.reserveInt32();
    writeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId: 'pipelining-test' }, requestHeaderVersion(apiKey, isFlexible(schemas.request, version)));
    compile(schemas.request as MessageSchema, version).write(w, body as never);
    size.chunkOwner.writeInt32BE(w.length - 4, size.position);
    this.socket.write(w.toBuffer());
  }

  decode(apiKey: number, version: number, frame: Buffer): Record<string, unknown> {
    const schemas = apiSchemas.get(apiKey);
    assert.ok(schemas);
    const r = new Reader(frame);
    readResponseHeader(r, responseHeaderVersion(apiKey, isFlexible(schemas.response, version)));
    return compile(schemas.response as MessageSchema, version).read(r) as Record<string, unknown>;
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.arrivals.length < count && !this.closed) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${count} responses (have ${this.arrivals.length})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

