// 49 AlterClientQuotas (KIP-546). v0-1; v1: flexible. Each entry names an
// entity (entityName null = the default entity of that type) and the keys
// to set or remove; one result per entry.
import { array, field, request, response, struct, type Infer } from '../schema.js';

const Entity = array(struct([field('entityType', 'string'), field('entityName', 'nullableString')]));

export const AlterClientQuotasRequest = request(49, { versions: '0-1', flexible: '1+', name: 'AlterClientQuotasRequest' }, [
  field('entries', array(struct([field('entity', Entity), field('ops', array(struct([field('key', 'string'), field('value', 'float64'), field('remove', 'bool')])))]))),
  field('validateOnly', 'bool'),
]);
export type AlterClientQuotasRequest = Infer<typeof AlterClientQuotasRequest>;

export const AlterClientQuotasResponse = response(49, { versions: '0-1', flexible: '1+', name: 'AlterClientQuotasResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('entries', array(struct([field('errorCode', 'int16'), field('errorMessage', 'nullableString'), field('entity', Entity)]))),
]);
export type AlterClientQuotasResponse = Infer<typeof AlterClientQuotasResponse>;
