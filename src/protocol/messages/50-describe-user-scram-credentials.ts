// 50 DescribeUserScramCredentials (KIP-554). v0 only, flexible. users null =
// every user with a credential. Only mechanism and iteration count are
// described; salts and keys never leave the broker.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const DescribeUserScramCredentialsRequest = request(50, { versions: '0', flexible: '0+', name: 'DescribeUserScramCredentialsRequest' }, [
  field('users', array(struct([field('name', 'string')])), { nullableVersions: '0+' }),
]);
export type DescribeUserScramCredentialsRequest = Infer<typeof DescribeUserScramCredentialsRequest>;

export const DescribeUserScramCredentialsResponse = response(50, { versions: '0', flexible: '0+', name: 'DescribeUserScramCredentialsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('errorCode', 'int16'),
  field('errorMessage', 'nullableString'),
  field(
    'results',
    array(
      struct([
        field('user', 'string'),
        field('errorCode', 'int16'),
        field('errorMessage', 'nullableString'),
        field('credentialInfos', array(struct([field('mechanism', 'int8'), field('iterations', 'int32')]))),
      ]),
    ),
  ),
]);
export type DescribeUserScramCredentialsResponse = Infer<typeof DescribeUserScramCredentialsResponse>;
