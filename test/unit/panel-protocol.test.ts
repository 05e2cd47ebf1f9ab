import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { isViewCommand } from '../../src/protocol/panel.ts';

const filters = { path: '', kind: '', folder: '' };

test('the messages the panel sends are accepted', () => {
  assert.ok(isViewCommand({ type: 'ready' }));
  assert.ok(isViewCommand({ type: 'ready', restore: { query: 'content store', filters: { path: '**/*.ts', kind: 'code', folder: '' } } }));
  assert.ok(isViewCommand({ type: 'search', query: 'content store', filters }));
  assert.ok(isViewCommand({ type: 'search', query: 'x', filters: { path: 'src/**', kind: 'code', folder: 'file:///w/app' } }));
  assert.ok(isViewCommand({ type: 'open', index: 0 }));
  assert.ok(isViewCommand({ type: 'open', index: 3, toSide: true }));
  assert.ok(isViewCommand({ type: 'index', action: 'rebuild' }));
  assert.ok(isViewCommand({ type: 'more' }));
});

test('a webview cannot name a file to open: a path, outside the workspace or not, is refused', () => {
  for (const path of ['/etc/passwd', '../../../.ssh/id_rsa', 'file:///etc/passwd', 'C:\\Windows\\win.ini']) {
    assert.equal(isViewCommand({ type: 'open', path }), false, path);
    assert.equal(isViewCommand({ type: 'open', index: 0, path }), false, `${path} beside an index`);
    assert.equal(isViewCommand({ type: 'open', index: path }), false, `${path} as the index`);
    assert.equal(isViewCommand({ type: 'open', index: 0, uri: path, absPath: path }), false, `${path} as uri/absPath`);
  }
});

test('an open index must be a whole number of the results shown, not any number', () => {
  for (const index of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, '0', null, {}]) {
    assert.equal(isViewCommand({ type: 'open', index }), false, inspect(index));
  }
});

test('malformed and unknown messages are refused', () => {
  for (const message of [
    null,
    undefined,
    'open',
    42,
    [],
    [{ type: 'ready' }],
    { type: 'runCommand', command: 'workbench.action.terminal.new' },
    { type: 'ready', command: 'x' },
    { type: 'ready', restore: { query: 'x' } },
    { type: 'ready', restore: { query: 'x', filters: { ...filters, kind: 'binary' } } },
    { type: 'ready', restore: { query: 'x', filters, dbFile: '/tmp/evil.db' } },
    { type: 'ready', restore: { query: 'x'.repeat(10_001), filters } },
    { type: 'search', query: 42, filters },
    { type: 'search', query: 'x' },
    { type: 'search', query: 'x', filters: { ...filters, kind: 'binary' } },
    { type: 'search', query: 'x', filters: { ...filters, folder: 7 } },
    { type: 'search', query: 'x', filters: { ...filters, dbFile: '/tmp/evil.db' } },
    { type: 'search', query: 'x'.repeat(10_001), filters },
    { type: 'index', action: 'delete' },
    { type: 'index', action: 'rebuild', folder: '/etc' },
    { type: 'more', offset: 10_000 },
    { type: 'open', index: 0, toSide: 'beside' },
  ]) {
    assert.equal(isViewCommand(message), false, JSON.stringify(message)?.slice(0, 80));
  }
});

test('a located file is opened by its place in the answer the host holds, never by a path', () => {
  assert.ok(isViewCommand({ type: 'openLocated', index: 0 }));
  assert.ok(isViewCommand({ type: 'openLocated', index: 2, chunk: 1 }));
  for (const message of [
    { type: 'openLocated', index: -1 },
    { type: 'openLocated', index: 0, chunk: 0.5 },
    { type: 'openLocated', index: 0, chunk: '0' },
    { type: 'openLocated', index: 0, path: '/etc/passwd' },
    { type: 'openLocated', index: 0, absPath: '/etc/passwd' },
    { type: 'openLocated', path: 'src/a.ts' },
  ]) {
    assert.equal(isViewCommand(message), false, JSON.stringify(message));
  }
});
