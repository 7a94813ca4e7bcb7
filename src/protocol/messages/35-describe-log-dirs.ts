// 35 DescribeLogDirs. v1: the broker responds before throttling (no wire
// change). v2: flexible. v3: response top-level errorCode. v4: response
// totalBytes and usableBytes per log dir (KIP-827). A null topics list asks
// for every partition.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeLogDirsRequest = request(35, { versions: '0-4', flexible: '2+', name: 'DescribeLogDirsRequest' }, [
  field('topics', array(struct([field('topic', 'string'), field('partitions', array('int32'))])), { nullableVersions: '0+' }),
]);
export type DescribeLogDirsRequest = Infer<typeof DescribeLogDirsRequest>;

export const DescribeLogDirsResponse = response(35, { versions: '0-4', flexible: '2+', name: 'DescribeLogDirsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16', { versions: '3+' }),
  field(
    'results',
    array(
      struct([
        field('errorCode', 'int16'),
        field('logDir', 'string'),
        field(
          'topics',
          array(
            struct([
              field('name', 'string'),
              field(
                'partitions',
                array(
                  struct([
                    field('partitionIndex', 'int32'),
                    field('partitionSize', 'int64'),
                    field('offsetLag', 'int64'),
                    field('isFutureKey', 'bool'),
                  ]),
                ),
              ),
            ]),
          ),
        ),
        field('totalBytes', 'int64', { versions: '4+', default: -1n }),
        field('usableBytes', 'int64', { versions: '4+', default: -1n }),
      ]),
    ),
  ),
]);
export type DescribeLogDirsResponse = Infer<typeof DescribeLogDirsResponse>;
