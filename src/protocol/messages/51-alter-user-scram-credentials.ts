// 51 AlterUserScramCredentials (KIP-554). v0 only, flexible. Upsertions carry
// the salted password (the client runs Hi() itself, so the password never
// travels); mechanism 1 = SCRAM-SHA-256, 2 = SCRAM-SHA-512.
import { array, field, request, response, struct, type Infer } from '../schema.js';

export const AlterUserScramCredentialsRequest = request(51, { versions: '0', flexible: '0+', name: 'AlterUserScramCredentialsRequest' }, [
  field('deletions', array(struct([field('name', 'string'), field('mechanism', 'int8')]))),
  field(
    'upsertions',
    array(
      struct([
        field('name', 'string'),
        field('mechanism', 'int8'),
        field('iterations', 'int32'),
        field('salt', 'bytes'),
        field('saltedPassword', 'bytes'),
      ]),
    ),
  ),
]);
export type AlterUserScramCredentialsRequest = Infer<typeof AlterUserScramCredentialsRequest>;

export const AlterUserScramCredentialsResponse = response(51, { versions: '0', flexible: '0+', name: 'AlterUserScramCredentialsResponse' }, [
  field('throttleTimeMs', 'int32'),
  field('results', array(struct([field('user', 'string'), field('errorCode', 'int16'), field('errorMessage', 'nullableString')]))),
]);
export type AlterUserScramCredentialsResponse = Infer<typeof AlterUserScramCredentialsResponse>;
