// 45 AlterPartitionReassignments (KIP-455). v0 only, and flexible from the
// start. replicas null cancels a pending reassignment of that partition. Not
// here: v1 (allowReplicationFactorChange, KIP-860).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const AlterPartitionReassignmentsRequest = request(
  45,
  { versions: '0', flexible: '0+', name: 'AlterPartitionReassignmentsRequest' },
  [
    field('timeoutMs', 'int32', { default: 60000 }),
    field(
      'topics',
      array(
        struct([
          field('name', 'string'),
          field(
            'partitions',
            array(struct([field('partitionIndex', 'int32'), field('replicas', array('int32'), { nullableVersions: '0+', default: null })])),
          ),
        ]),
      ),
    ),
  ],
);
export type AlterPartitionReassignmentsRequest = Infer<typeof AlterPartitionReassignmentsRequest>;

export const AlterPartitionReassignmentsResponse = response(
  45,
  { versions: '0', flexible: '0+', name: 'AlterPartitionReassignmentsResponse' },
  [
    field('throttleTimeMs', 'int32'),
    field('errorCode', 'int16'),
    field('errorMessage', 'nullableString'),
    field(
      'responses',
      array(
        struct([
          field('name', 'string'),
          field(
            'partitions',
            array(struct([field('partitionIndex', 'int32'), field('errorCode', 'int16'), field('errorMessage', 'nullableString')])),
          ),
        ]),
      ),
    ),
  ],
);
export type AlterPartitionReassignmentsResponse = Infer<typeof AlterPartitionReassignmentsResponse>;
