import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseToolInput } from '../../src/extension/agent-input.ts';

test('the language model tool takes a list of globs for path, as the MCP search tool does', () => {
  const parsed = parseToolInput({ query: 'retry', path: ['src/**/*.ts', ' docs/** '] });
  assert.deepEqual(parsed, { ok: true, value: { query: 'retry', path: ['src/**/*.ts', 'docs/**'] } });
});

test('the language model tool takes a byte budget, within the bounds the MCP search tool has', () => {
  assert.deepEqual(parseToolInput({ query: 'retry', budget_bytes: 2048 }), { ok: true, value: { query: 'retry', budget_bytes: 2048 } });
  assert.deepEqual(parseToolInput({ query: 'retry', budget_bytes: 100 }), { ok: false, message: '"budget_bytes" must be a whole number from 512 to 262144' });
});

test('a model asking for more than 50 results is told the bound', () => {
  assert.deepEqual(parseToolInput({ query: 'retry', limit: 51 }), { ok: false, message: '"limit" must be a whole number from 1 to 50' });
});

test('a blank query or an unknown kind gets a sentence the model can act on', () => {
  assert.deepEqual(parseToolInput({ query: '  ' }), { ok: false, message: '"query" must be a non-empty string' });
  assert.deepEqual(parseToolInput({ query: 'x', kind: 'binary' }), { ok: false, message: '"kind" must be "code" or "prose"' });
  assert.deepEqual(parseToolInput({ query: 'x', path: [] }), { ok: false, message: '"path" must be a glob such as "src/**/*.ts", or a list of globs' });
});
