import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filtersFor, globsOf, resolveSearchOptions } from '../../src/core/options.ts';

test('candidate depth defaults to max(100, 2 × limit) and the rerank window is deeper than the limit', () => {
  const small = resolveSearchOptions({ limit: 3 });
  assert.equal(small.candidateDepth, 100);
  const big = resolveSearchOptions({ limit: 60 });
  assert.equal(big.candidateDepth, 120);
  assert.ok(big.rerankWindow > big.limit);
});

test('invalid option values fall back to the defaults', () => {
  const o = resolveSearchOptions({ limit: -4, rrfK: Number.NaN, fuzzy: 'sometimes' as never });
  assert.equal(o.limit, 10);
  assert.equal(o.rrfK, 60);
  assert.equal(o.fuzzy, 'unknown-words');
});

test('asking for more results than the most a search returns gives the most, not the default', () => {
  assert.equal(resolveSearchOptions({ limit: 999 }).limit, 500);
});

test('a path given as one glob or as a list filters the same way, alongside the kind', () => {
  assert.deepEqual(filtersFor('src/**', 'code'), { include: ['src/**'], kind: 'code' });
  assert.deepEqual(filtersFor(['src/**', '*.md'], undefined), { include: ['src/**', '*.md'] });
  assert.deepEqual(filtersFor(undefined, undefined), {});
});

test('a glob written !glob leaves out what it matches, alone or beside globs to keep', () => {
  assert.deepEqual(filtersFor('!test/**', undefined), { exclude: ['test/**'] });
  assert.deepEqual(filtersFor(['src/**', '!**/*.test.ts'], 'code'), { include: ['src/**'], exclude: ['**/*.test.ts'], kind: 'code' });
});

test("the panel's path field takes globs as VS Code's files to include does: comma-separated, braces kept whole", () => {
  assert.deepEqual(globsOf('src/**/*.ts, !**/*.test.ts'), ['src/**/*.ts', '!**/*.test.ts']);
  assert.deepEqual(globsOf('*.{ts,js},docs/**'), ['*.{ts,js}', 'docs/**']);
  assert.deepEqual(globsOf(' , '), []);
});
