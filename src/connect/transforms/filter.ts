/**
 * Filter and the built-in predicates (KIP-585): Filter drops every record it
 * is applied to, so it is used with a predicate (`transforms.x.predicate`,
 * optionally `negate`). TopicNameMatches tests the topic against `pattern`
 * (whole name), HasHeaderKey tests for a header `name`, RecordIsTombstone
 * for a null value.
 */
import { ConfigDef, ParsedConfig, Validators } from '../config-def.js';
import type { ConnectRecord } from '../spi.js';
import type { Predicate, Transformation } from './transformation.js';

const EMPTY = new ConfigDef();

export class Filter implements Transformation {
  config(): ConfigDef {
    return EMPTY;
  }

  configure(): void {}

  apply<R extends ConnectRecord>(): R | null {
    return null;
  }
}

const TOPIC_DEF = new ConfigDef().define({ name: 'pattern', type: 'STRING', importance: 'MEDIUM', documentation: 'A Java regular expression for matching against the name of a record\'s topic.', validator: (n, v) => { Validators.nonEmptyString()(n, v); Validators.regex()(n, v); } });

export class TopicNameMatches implements Predicate {
  private pattern = /^$/;

  config(): ConfigDef {
    return TOPIC_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.pattern = new RegExp(`^(?:${ParsedConfig.of(TOPIC_DEF, props).string('pattern')})$`);
  }

  test(record: ConnectRecord): boolean {
    return this.pattern.test(record.topic);
  }
}

const HEADER_DEF = new ConfigDef().define({ name: 'name', type: 'STRING', importance: 'MEDIUM', documentation: 'The header name.', validator: Validators.nonEmptyString() });

export class HasHeaderKey implements Predicate {
  private name = '';

  config(): ConfigDef {
    return HEADER_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.name = ParsedConfig.of(HEADER_DEF, props).string('name');
  }

  test(record: ConnectRecord): boolean {
    return record.headers.some((h) => h.key === this.name);
  }
}

export class RecordIsTombstone implements Predicate {
  config(): ConfigDef {
    return EMPTY;
  }

  configure(): void {}

  test(record: ConnectRecord): boolean {
    return record.value === null || record.value === undefined;
  }
}
