// 35 DescribeLogDirs, v0-4 (v1: the broker answers before throttling, no
// wire change; v2 flexible; v3: top-level errorCode; v4: totalBytes and
// usableBytes per directory, KIP-827). platformatic's admin sends v2-4.
//
// One result per data directory (log.dirs; Tributary has one), named by its
// absolute path, listing the partition logs in it: partitionSize = the bytes
// of its segment files, offsetLag 0 and isFutureKey false (no
// AlterReplicaLogDirs, so no future replicas). Every log the broker holds is
// listed, hosted or not, as Kafka does. topics null = every partition; a
// requested partition that is not here is left out. v4 totalBytes/usableBytes
// come from statfs(2) on the directory (usable = available to this user);
// -1 when statfs fails.
//
// Deliberate difference: Kafka lists every topic of the directory even when
// a topic filter leaves none of its partitions; topics with no matching
// partition are left out here. Errors: none per directory (an offline
// directory would answer KAFKA_STORAGE_ERROR; a failed disk stops this broker).
import { statfs } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../../protocol/messages/35-describe-log-dirs.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';

async function diskSpace(dir: string): Promise<{ totalBytes: bigint; usableBytes: bigint }> {
  try {
    const s = await statfs(dir, { bigint: true });
    return { totalBytes: s.blocks * s.bsize, usableBytes: s.bavail * s.bsize };
  } catch {
    return { totalBytes: -1n, usableBytes: -1n };
  }
}

export const describeLogDirsHandler = defineHandler({
  apiKey: 35,
  name: 'DescribeLogDirs',
  minVersion: 0,
  maxVersion: 4,
  request: DescribeLogDirsRequest,
  response: DescribeLogDirsResponse,
  async handle(ctx, req) {
    const wanted = req.topics === null ? null : new Map(req.topics.map((t) => [t.topic, new Set(t.partitions)]));
    const dirs = ctx.services.replicaManager.logDirs();
    const results = await Promise.all(
      dirs.map(async ({ dir, logs }) => {
        const byTopic = new Map<string, { partitionIndex: number; partitionSize: bigint; offsetLag: bigint; isFutureKey: boolean }[]>();
        for (const log of logs) {
          if (wanted !== null && !(wanted.get(log.topic)?.has(log.partition) ?? false)) continue;
          const list = byTopic.get(log.topic) ?? [];
          list.push({ partitionIndex: log.partition, partitionSize: BigInt(log.sizeBytes), offsetLag: 0n, isFutureKey: false });
          byTopic.set(log.topic, list);
        }
        const topics = [...byTopic]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, partitions]) => ({ name, partitions: partitions.sort((a, b) => a.partitionIndex - b.partitionIndex) }));
        const space = ctx.apiVersion >= 4 ? await diskSpace(dir) : { totalBytes: -1n, usableBytes: -1n };
        return { errorCode: ErrorCode.NONE, logDir: resolve(dir), topics, ...space };
      }),
    );
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results };
  },
  errorResponse: (_req, errorCode) => ({ throttleTimeMs: 0, errorCode, results: [] }),
});
