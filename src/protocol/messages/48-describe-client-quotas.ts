// 48 DescribeClientQuotas (KIP-546). v0-1; v1: flexible. Each component
// filters one entity type: matchType 0 EXACT (match = name), 1 DEFAULT (the
// default entity), 2 SPECIFIED (any named entity). strict: only entities
// with exactly the components' types. entries null on error.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeClientQuotasRequest = request(48, { versions: '0-1', flexible: '1+', name: 'DescribeClientQuotasRequest' }, [
  field('components', array(struct([field('entityType', 'string'), field('matchType', 'int8'), field('match', 'nullableString')]))),
  field('strict', 'bool'),
]);
export type DescribeClientQuotasRequest = Infer<typeof DescribeClientQuotasRequest>;

export const DescribeClientQuotasResponse = response(48, { versions: '0-1', flexible: '1+', name: 'DescribeClientQuotasResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('errorMessage', 'nullableString'),
  field(
    'entries',
    array(
      struct([
        field('entity', array(struct([field('entityType', 'string'), field('entityName', 'nullableString')]))),
        field('values', array(struct([field('key', 'string'), field('value', 'float64')]))),
      ]),
    ),
    { nullableVersions: '0+' },
  ),
]);
export type DescribeClientQuotasResponse = Infer<typeof DescribeClientQuotasResponse>;
