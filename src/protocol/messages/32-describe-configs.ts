// 32 DescribeConfigs. v1: request includeSynonyms; response configSource
// replaces isDefault (v0 only) and each config lists its synonyms. v2: the
// broker responds before throttling (no wire change). v3: request
// includeDocumentation; response configType and documentation (KIP-569).
// v4: flexible. configurationKeys null means every key of the resource.
// configSource: 0 unknown, 1 topic, 2 dynamic broker, 3 dynamic default broker,
// 4 static broker, 5 default, 6 dynamic broker logger. The schema default -1 is
// only a placeholder: what a v0 caller should see depends on the resource.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeConfigsRequest = request(32, { versions: '0-4', flexible: '4+', name: 'DescribeConfigsRequest' }, [
  field(
    'resources',
    array(
      struct([
        field('resourceType', 'int8'),
        field('resourceName', 'string'),
        field('configurationKeys', array('string'), { nullableVersions: '0+' }),
      ]),
    ),
  ),
  field('includeSynonyms', 'bool', { versions: '1+', default: false }),
  field('includeDocumentation', 'bool', { versions: '3+', default: false }),
]);
export type DescribeConfigsRequest = Infer<typeof DescribeConfigsRequest>;

export const DescribeConfigsResponse = response(32, { versions: '0-4', flexible: '4+', name: 'DescribeConfigsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field(
    'results',
    array(
      struct([
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString'),
        field('resourceType', 'int8'),
        field('resourceName', 'string'),
        field(
          'configs',
          array(
            struct([
              field('name', 'string'),
              field('value', 'nullableString'),
              field('readOnly', 'bool'),
              field('isDefault', 'bool', { versions: '0' }),
              field('configSource', 'int8', { versions: '1+', default: -1 }),
              field('isSensitive', 'bool'),
              field(
                'synonyms',
                array(struct([field('name', 'string'), field('value', 'nullableString'), field('source', 'int8')])),
                { versions: '1+' },
              ),
              field('configType', 'int8', { versions: '3+', default: 0 }),
              field('documentation', 'nullableString', { versions: '3+' }),
            ]),
          ),
        ),
      ]),
    ),
  ),
]);
export type DescribeConfigsResponse = Infer<typeof DescribeConfigsResponse>;
