// 46 ListPartitionReassignments (KIP-455). v0 only, and flexible from the
// start. topics null lists every reassignment in progress.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const ListPartitionReassignmentsRequest = request(
  46,
  { versions: '0', flexible: '0+', name: 'ListPartitionReassignmentsRequest' },
  [
    field('timeoutMs', 'int32', { default: 60000 }),
    field('topics', array(struct([field('name', 'string'), field('partitionIndexes', array('int32'))])), {
      nullableVersions: '0+',
      default: null,
    }),
  ],
);
export type ListPartitionReassignmentsRequest = Infer<typeof ListPartitionReassignmentsRequest>;

export const ListPartitionReassignmentsResponse = response(
  46,
  { versions: '0', flexible: '0+', name: 'ListPartitionReassignmentsResponse' },
  [
    field('throttleTimeMs', 'int32'),
    field('errorCode', 'int16'),
    field('errorMessage', 'nullableString'),
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
                field('replicas', array('int32')),
                field('addingReplicas', array('int32')),
                field('removingReplicas', array('int32')),
              ]),
            ),
          ),
        ]),
      ),
    ),
  ],
);
export type ListPartitionReassignmentsResponse = Infer<typeof ListPartitionReassignmentsResponse>;
