import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_INDEX_OPTIONS } from '../../src/core/options.ts';
import { parseSettings, RESTRICTED_KEYS, type SettingsSource } from '../../src/extension/settings-parse.ts';

/** A source with a user layer and a workspace layer on top of it, as VS Code resolves them. */
function source(user: Record<string, unknown>, workspace: Record<string, unknown>): SettingsSource {
  return {
    get: (key) => workspace[key] ?? user[key],
    inspect: (key) => ({ globalValue: user[key] }),
  };
}

const workspace = {
  include: ['../../**', '/home/**'],
  exclude: [],
  maxFileBytes: 2 ** 40,
  chunkMaxBytes: 10_000_000,
  indexSecretFiles: true,
  limit: 25,
  fuzzy: 'off',
};

test('in an untrusted workspace, the workspace cannot change what is read into the index or how it is stored', () => {
  const warnings: string[] = [];
  const s = parseSettings(source({}, workspace), false, (m) => warnings.push(m));
  assert.deepEqual(s.index, {
    include: [],
    exclude: [],
    maxFileBytes: DEFAULT_INDEX_OPTIONS.maxFileBytes,
    chunkMaxBytes: DEFAULT_INDEX_OPTIONS.chunkMaxBytes,
    indexSecretFiles: false,
  });
  assert.deepEqual(warnings, []);
});

test("in an untrusted workspace the user's own values for those settings still apply", () => {
  const s = parseSettings(source({ exclude: ['vendor/**'], maxFileBytes: 4096 }, workspace), false, () => undefined);
  assert.deepEqual(s.index.exclude, ['vendor/**']);
  assert.equal(s.index.maxFileBytes, 4096);
  assert.deepEqual(s.index.include, []);
});

test("a cloned repository's workspace settings cannot turn on indexing its credential files; the user's own setting can", () => {
  assert.equal(parseSettings(source({}, { indexSecretFiles: true }), false, () => undefined).index.indexSecretFiles, false);
  assert.equal(parseSettings(source({ indexSecretFiles: true }, {}), false, () => undefined).index.indexSecretFiles, true);
  // Trusting the workspace is trusting its settings, as for every other index setting.
  assert.equal(parseSettings(source({}, { indexSecretFiles: true }), true, () => undefined).index.indexSecretFiles, true);
});

test('in an untrusted workspace, settings that only shape a search still come from the workspace', () => {
  const s = parseSettings(source({}, workspace), false, () => undefined);
  assert.equal(s.search.limit, 25);
  assert.equal(s.search.fuzzy, 'off');
});

test("in a trusted workspace the workspace's values apply, checked like any other", () => {
  const warnings: string[] = [];
  const s = parseSettings(source({}, workspace), true, (m) => warnings.push(m));
  assert.deepEqual(s.index.include, ['../../**', '/home/**']);
  assert.equal(s.index.maxFileBytes, 2 ** 40);
  assert.equal(s.index.chunkMaxBytes, 10_000_000);
  assert.deepEqual(warnings, []);
});

test('the restricted keys are the ones the manifest restricts', async () => {
  const { readFile } = await import('node:fs/promises');
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  };
  assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(), [...RESTRICTED_KEYS].map((k) => `fusedSearch.${k}`).sort());
});

test('an invalid value falls back to the default with a warning', () => {
  const warnings: string[] = [];
  const s = parseSettings(source({ maxFileBytes: -1, include: 'src' }, {}), true, (m) => warnings.push(m));
  assert.equal(s.index.maxFileBytes, DEFAULT_INDEX_OPTIONS.maxFileBytes);
  assert.deepEqual(s.index.include, []);
  assert.equal(warnings.length, 2);
});

test('fusedSearch.prepareThreads sets how many threads prepare files; unset, the engine picks', () => {
  assert.equal(parseSettings(source({ prepareThreads: 0 }, {}), true, () => undefined).index.prepareThreads, 0);
  assert.equal(parseSettings(source({ prepareThreads: 3 }, {}), true, () => undefined).index.prepareThreads, 3);
  assert.equal('prepareThreads' in parseSettings(source({}, {}), true, () => undefined).index, false);
  const warnings: string[] = [];
  assert.equal('prepareThreads' in parseSettings(source({ prepareThreads: 99 }, {}), true, (m) => warnings.push(m)).index, false);
  assert.equal(warnings.length, 1);
});

test('fusedSearch.testWeight sets the share of its score a test keeps; out of 0–1 it falls back to 0.7 with a warning', () => {
  assert.equal(parseSettings(source({ testWeight: 1 }, {}), true, () => undefined).search.testWeight, 1);
  const warnings: string[] = [];
  assert.equal(parseSettings(source({ testWeight: 1.5 }, {}), true, (m) => warnings.push(m)).search.testWeight, 0.7);
  assert.match(warnings.join('\n'), /testWeight = 1\.5 is invalid; using 0\.7/);
});

test("fusedSearch.changelogWeight sets the share of its score a changelog's entry keeps; out of 0–1 it falls back to 0.7 with a warning", () => {
  assert.equal(parseSettings(source({}, {}), true, () => undefined).search.changelogWeight, 0.7);
  assert.equal(parseSettings(source({ changelogWeight: 1 }, {}), true, () => undefined).search.changelogWeight, 1);
  const warnings: string[] = [];
  assert.equal(parseSettings(source({ changelogWeight: -1 }, {}), true, (m) => warnings.push(m)).search.changelogWeight, 0.7);
  assert.match(warnings.join('\n'), /changelogWeight = -1 is invalid; using 0\.7/);
});

test("fusedSearch.buildOutputWeight sets the share of its score a build's output keeps; out of 0–1 it falls back to 0.7 with a warning", () => {
  assert.equal(parseSettings(source({}, {}), true, () => undefined).search.buildOutputWeight, 0.7);
  assert.equal(parseSettings(source({ buildOutputWeight: 0.5 }, {}), true, () => undefined).search.buildOutputWeight, 0.5);
  const warnings: string[] = [];
  assert.equal(parseSettings(source({ buildOutputWeight: 2 }, {}), true, (m) => warnings.push(m)).search.buildOutputWeight, 0.7);
  assert.match(warnings.join('\n'), /buildOutputWeight = 2 is invalid; using 0\.7/);
});

test("fusedSearch.vendoredWeight sets the share of its score another project's committed code keeps; out of 0–1 it falls back to 0.7 with a warning", () => {
  assert.equal(parseSettings(source({}, {}), true, () => undefined).search.vendoredWeight, 0.7);
  assert.equal(parseSettings(source({ vendoredWeight: 1 }, {}), true, () => undefined).search.vendoredWeight, 1);
  const warnings: string[] = [];
  assert.equal(parseSettings(source({ vendoredWeight: 'half' }, {}), true, (m) => warnings.push(m)).search.vendoredWeight, 0.7);
  assert.match(warnings.join('\n'), /vendoredWeight = "half" is invalid; using 0\.7/);
});
