// 18 ApiVersions. v1: throttleTimeMs. v3: flexible, client software name and
// version (KIP-511), supported/finalized features as tagged fields (KIP-584).
// The response header stays v0 in every version (see headers.ts).
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const ApiVersionsRequest = request(18, { versions: '0-3', flexible: '3+', name: 'ApiVersionsRequest' }, [
  field('clientSoftwareName', 'string', { versions: '3+' }),
  field('clientSoftwareVersion', 'string', { versions: '3+' }),
]);
export type ApiVersionsRequest = Infer<typeof ApiVersionsRequest>;

export const ApiVersionsResponse = response(18, { versions: '0-3', flexible: '3+', name: 'ApiVersionsResponse' }, [
  field('errorCode', 'int16'),
  field('apiKeys', array(struct([field('apiKey', 'int16'), field('minVersion', 'int16'), field('maxVersion', 'int16')]))),
  field('throttleTimeMs', 'int32', { versions: '1+' }),
  field(
    'supportedFeatures',
    array(struct([field('name', 'string'), field('minVersion', 'int16'), field('maxVersion', 'int16')])),
    { versions: '3+', tag: 0 },
  ),
  field('finalizedFeaturesEpoch', 'int64', { versions: '3+', tag: 1, default: -1n }),
  field(
    'finalizedFeatures',
    array(struct([field('name', 'string'), field('maxVersionLevel', 'int16'), field('minVersionLevel', 'int16')])),
    { versions: '3+', tag: 2 },
  ),
  field('zkMigrationReady', 'bool', { versions: '3+', tag: 3, default: false }),
]);
export type ApiVersionsResponse = Infer<typeof ApiVersionsResponse>;
