/**
 * The test helper's Prometheus text parser: what it accepts (escapes,
 * histograms, special values) and what it refuses, and a round trip through
 * prom-client's own formatter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { histogram, parsePrometheusText, PrometheusParseError, value } from '../../../helpers/prometheus-text.js';

test('parses HELP/TYPE with escapes, labels with escapes, special values and timestamps', () => {
  const m = parsePrometheusText(
    [
      '# HELP a_total Lines with a backslash \\\\ and a\\nnewline.',
      '# TYPE a_total counter',
      'a_total{path="C:\\\\dir",quote="say \\"hi\\"",nl="one\\ntwo"} 3',
      'a_total{path="",quote="",nl=""} 1e3 1700000000000',
      '# a free comment',
      '# TYPE g gauge',
      'g NaN',
      'g{x="inf"} +Inf',
      'g{x="-inf"} -Inf',
      '',
    ].join('\n'),
  );
  const a = m.get('a_total');
  assert.equal(a?.help, 'Lines with a backslash \\ and a\nnewline.');
  assert.equal(a?.type, 'counter');
  assert.equal(value(m, 'a_total', { path: 'C:\\dir', quote: 'say "hi"', nl: 'one\ntwo' }), 3);
  assert.equal(value(m, 'a_total', { path: '' }), 1000);
  assert.equal(a?.samples[1]?.timestampMs, 1700000000000);
  assert.ok(Number.isNaN(m.get('g')?.samples[0]?.value));
  assert.equal(value(m, 'g', { x: 'inf' }), Infinity);
  assert.equal(value(m, 'g', { x: '-inf' }), -Infinity);
});

test('groups _bucket/_sum/_count under a histogram family and checks the buckets', () => {
  const m = parsePrometheusText(
    [
      '# TYPE h histogram',
      'h_bucket{api="x",le="0.1"} 1',
      'h_bucket{api="x",le="1"} 3',
      'h_bucket{api="x",le="+Inf"} 4',
      'h_sum{api="x"} 2.5',
      'h_count{api="x"} 4',
    ].join('\n'),
  );
  assert.deepEqual([...m.keys()], ['h']);
  assert.deepEqual(histogram(m, 'h', { api: 'x' }), {
    buckets: [
      { le: 0.1, count: 1 },
      { le: 1, count: 3 },
      { le: Infinity, count: 4 },
    ],
    sum: 2.5,
    count: 4,
  });
  const broken = parsePrometheusText(['# TYPE h histogram', 'h_bucket{le="1"} 3', 'h_bucket{le="+Inf"} 2', 'h_sum 1', 'h_count 2'].join('\n'));
  assert.throws(() => histogram(broken, 'h', {}), /cumulative/);
});

test('refuses malformed lines', () => {
  for (const bad of [
    'x{a="1"',
    'x{a=1} 2',
    'x{a="1",a="2"} 2',
    'x{a="\\t"} 1',
    'x{1a="1"} 1',
    'x one',
    'x',
    '# TYPE x colour',
    'x{a="1"}2',
  ]) {
    assert.throws(() => parsePrometheusText(bad), PrometheusParseError, bad);
  }
});

test('round trip: what prom-client writes, the parser reads back', async () => {
  const registry = new Registry();
  const c = new Counter({ name: 'rt_total', help: 'a "quoted" help\nwith a newline \\ and backslash', labelNames: ['v'], registers: [registry] });
  c.inc({ v: 'a"b\\c\nd' }, 5);
  const h = new Histogram({ name: 'rt_seconds', help: 'h', labelNames: ['api'], buckets: [0.01, 0.1], registers: [registry] });
  h.observe({ api: 'Fetch' }, 0.05);
  h.observe({ api: 'Fetch' }, 3);
  const m = parsePrometheusText(await registry.metrics());
  assert.equal(m.get('rt_total')?.help, 'a "quoted" help\nwith a newline \\ and backslash');
  assert.equal(value(m, 'rt_total', { v: 'a"b\\c\nd' }), 5);
  const series = histogram(m, 'rt_seconds', { api: 'Fetch' });
  assert.equal(series?.count, 2);
  assert.deepEqual(series?.buckets.map((b) => b.count), [0, 1, 2]);
});
