// ssl.principal.mapping.rules (KIP-371) with the examples of Kafka's
// documentation and its SslPrincipalMapper tests: valid and invalid rule
// texts, first matching rule wins, L/U case changes, DEFAULT, no match.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PrincipalMapper, PrincipalMappingError } from '../../../../src/security/tls/principal-mapper.js';

describe('PrincipalMapper', () => {
  it('accepts Kafka\'s valid rule texts', () => {
    for (const rules of [
      'DEFAULT',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT',
      'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/',
      'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L',
      'RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U',
      'RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/',
      'RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/',
    ]) assert.doesNotThrow(() => PrincipalMapper.parse(rules), rules);
  });

  it('refuses Kafka\'s invalid rule texts', () => {
    for (const rules of [
      'default',
      'DEFAUL',
      'DEFAULT/L',
      'DEFAULT/U',
      'RULE:CN=(.*?),OU=ServiceUsers.*/$1',
      'rule:^CN=(.*?),OU=ServiceUsers.*$/$1/',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/L',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/U',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/LU',
      'RULE:^CN=((/$1/',
    ]) assert.throws(() => PrincipalMapper.parse(rules), PrincipalMappingError, rules);
  });

  it('maps names with the first rule that matches the whole name (Kafka\'s documented example)', () => {
    const mapper = PrincipalMapper.parse(
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, '
      + 'RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT',
    );
    assert.equal(mapper.map('CN=Duke,OU=ServiceUsers,O=Org,C=US'), 'duke');
    assert.equal(mapper.map('CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US'), 'duke@sme');
    assert.equal(mapper.map('cn=duke,ou=sme,dc=mycp,dc=com'), 'DUKE@SME');
    assert.equal(mapper.map('cN=duke,OU=JavaSoft,O=Sun Microsystems'), 'DUKE');
    assert.equal(mapper.map('OU=JavaSoft,O=Sun Microsystems,C=US'), 'OU=JavaSoft,O=Sun Microsystems,C=US');
  });

  it('DEFAULT keeps the whole name; without DEFAULT an unmatched name maps to nothing (the client is refused)', () => {
    assert.equal(PrincipalMapper.parse('DEFAULT').map('CN=alice,OU=eng,O=Tributary'), 'CN=alice,OU=eng,O=Tributary');
    const strict = PrincipalMapper.parse('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/');
    assert.equal(strict.map('CN=svc,OU=ServiceUsers,O=Acme'), 'svc');
    assert.equal(strict.map('CN=alice,OU=eng,O=Acme'), null);
  });

  it('splits rules only at commas that end a rule, keeps escaped slashes and handles escaped commas in names', () => {
    const mapper = PrincipalMapper.parse('RULE:^CN=((\\\\, *|\\w)+)(,.*|$)/$1/,RULE:^OU=a\\/b,(.*)$/x\\/$1/,DEFAULT');
    assert.equal(mapper.map('CN=Tester\\, McTest,OU=eng'), 'Tester\\, McTest');
    assert.equal(mapper.map('OU=a/b,O=z'), 'x/O=z');
    assert.equal(mapper.map('O=only'), 'O=only');
  });

  it('a $n beyond the groups is literal, as Java\'s replacement with Kafka\'s back-reference escaping', () => {
    const mapper = PrincipalMapper.parse('RULE:^CN=(\\w+),OU=(\\w+)$/$1@$2$3/');
    assert.equal(mapper.map('CN=a,OU=b'), 'a@b$3');
  });
});
