import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker } from '../../src/core/chunk/index.ts';
import type { ChunkDraft } from '../../src/core/types.ts';

const chunker = await createChunker({ chunkMaxBytes: 4096 });
const tight = await createChunker({ chunkMaxBytes: 200 });

function ranges(chunks: ChunkDraft[]): Array<[string, number, number]> {
  return chunks.map((c) => [c.title, c.startLine, c.endLine]);
}

const PACKAGE_JSON = `{
  "name": "fused-search",
  "version": "0.1.0",
  "scripts": {
    "build": "node esbuild.mjs --minify --sourcemap --target=node22 --outdir=dist",
    "test": "node --test --test-reporter=spec test/unit/*.test.ts test/integration/*.test.ts",
    "bench": "node --expose-gc bench/index-speed.ts --corpus /tmp/linux-6.1 --repeat 5"
  },
  "license": "MIT"
}
`;

test('a small JSON file is one chunk titled by the file', async () => {
  const { language, chunks } = await chunker.chunk('package.json', PACKAGE_JSON);
  assert.equal(language, 'json');
  assert.deepEqual(ranges(chunks), [['package.json', 1, 10]]);
  assert.equal(chunks[0]?.kind, 'code');
});

test('JSON keys too big to share a chunk are split by key path', async () => {
  const { chunks } = await tight.chunk('package.json', PACKAGE_JSON);
  assert.deepEqual(ranges(chunks), [
    ['name, version', 1, 3],
    ['scripts > build, test', 4, 6],
    ['scripts > bench', 7, 8],
    ['license', 9, 10],
  ]);
  assert.ok(chunks.every((c) => Buffer.byteLength(c.text) <= 200));
});

test('tsconfig-style JSON with comments and trailing commas is read by key path', async () => {
  const text = `{\n  // Strictness first.\n  "compilerOptions": {\n    "strict": true, // always\n    /* paths */ "paths": {\n      "@core/*": ["src/core/*"],\n    },\n${Array.from({ length: 8 }, (_, i) => `    "option${i}": "a fairly long value number ${i}",`).join('\n')}\n  },\n}\n`;
  const { language, chunks } = await tight.chunk('tsconfig.json', text);
  assert.equal(language, 'jsonc');
  assert.equal(chunks[0]?.title, 'compilerOptions > strict, paths, option0');
  assert.equal(chunks[0]?.startLine, 1);
  assert.ok(chunks.every((c) => c.title.startsWith('compilerOptions > ')));
});

test('a long JSON array is grouped into item ranges', async () => {
  const items = Array.from({ length: 30 }, (_, i) => `  {"id": ${i}, "size": "a value of item number ${i}"}`);
  const text = `[\n${items.join(',\n')}\n]\n`;
  const { chunks } = await tight.chunk('data.json', text);
  assert.ok(chunks.length > 1);
  assert.match(chunks[0]?.title ?? '', /^\[0–\d+\]$/, 'a number id names nothing');
  assert.match(chunks[chunks.length - 1]?.title ?? '', /^\[(\d+–)?29\]$/);
});

test('JSON array items are titled by their name, title or id', async () => {
  const commands = [
    { command: 'fusedSearch.search', title: 'Fused Search: Search the Workspace', category: 'Fused Search' },
    { command: 'fusedSearch.locate', title: 'Fused Search: Locate an Issue or Stack Trace', category: 'Fused Search' },
    { command: 'fusedSearch.rebuild', title: 'Fused Search: Rebuild the Index', category: 'Fused Search' },
    { id: 'panel', name: 'Results', when: 'fusedSearch.ready' },
    { when: 'always', group: 'navigation' },
  ];
  const text = `{\n  "commands": [\n${commands.map((c) => `    ${JSON.stringify(c)}`).join(',\n')}\n  ]\n}\n`;
  const { chunks } = await tight.chunk('package.json', text);
  assert.deepEqual(
    chunks.map((c) => c.title),
    [
      'commands > Fused Search: Search the Workspace',
      'commands > Fused Search: Locate an Issue or Stack Trace',
      'commands > Fused Search: Rebuild the Index, panel',
      'commands > [4]',
    ],
    'items are named by their first naming member, id before name; an item without one keeps its index',
  );
  const mixed = await tight.chunk('views.json', `[\n${['{"name": "Results"}', '{"when": "never"}', `{"x": "${'x'.repeat(180)}"}`].join(',\n')}\n]\n`);
  assert.equal(mixed.chunks[0]?.title, '[0–1]', 'a group holding an unnamed item keeps its range');
});

test('invalid JSON falls back to line windows', async () => {
  const { chunks } = await chunker.chunk('broken.json', '{\n  "a": 1,\n  "b": oops\n}\n');
  assert.deepEqual(ranges(chunks), [['broken.json: "a": 1,', 1, 4]]);
  assert.equal(chunks[0]?.kind, 'code');
});

test('10,000 levels of JSON nesting neither throw nor blow the stack', async () => {
  const depth = 10_000;
  const text = `{"deep": ${'['.repeat(depth)}1${']'.repeat(depth)}, "after": 2}`;
  const { chunks } = await tight.chunk('deep.json', text);
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((c) => Buffer.byteLength(c.text) <= 200));
  const multiLine = `{\n"a": {\n${'"k": {\n'.repeat(depth)}"leaf": 1\n${'}\n'.repeat(depth)}}\n}\n`;
  assert.ok((await tight.chunk('deep2.json', multiLine)).chunks.length > 1);
});

const WORKFLOW_YAML = `name: ci
on: [push]

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: Checkout the repository with full history
        uses: actions/checkout@v4
      - name: Run the tests
        run: |
          npm ci
          npm test -- --reporter spec
          key: not a key, this is script text
  lint:
    runs-on: ubuntu-latest
`;

test('YAML is chunked by key path, sequence items by their names', async () => {
  const { language, chunks } = await tight.chunk('.github/workflows/ci.yml', WORKFLOW_YAML);
  assert.equal(language, 'yaml');
  assert.deepEqual(ranges(chunks), [
    ['name, on', 1, 2],
    ['jobs > build > runs-on', 4, 6],
    ['jobs > build > steps > Checkout the repository with full history', 7, 9],
    ['jobs > build > steps > Run the tests', 10, 14],
    ['jobs > lint', 15, 16],
  ]);
  assert.ok(chunks.every((c) => c.kind === 'code'));
});

const MANUAL_YAML = `sections:
  - title: Basic filters
    body: |
      The simplest filters there are, ${'each one described at length, '.repeat(3)}
    entries:
      - title: "Identity: \`.\`"
        body: The identity filter returns its input unchanged. ${'x'.repeat(80)}
      - title: 'Object Identifier-Index: \`.foo\`' # a comment, not the title
        body: Looks up a key. ${'x'.repeat(80)}
  - body: A section with no title. ${'x'.repeat(120)}
  - title: 42
    body: A number is no name. ${'x'.repeat(120)}
`;

test('a YAML sequence item is named by its title, quoted or not; an item without one keeps its index', async () => {
  const { chunks } = await tight.chunk('docs/manual.yml', MANUAL_YAML);
  assert.deepEqual(
    chunks.map((c) => c.title),
    [
      'sections > Basic filters > title, body',
      'sections > Basic filters > entries > Identity: `.`',
      'sections > Basic filters > entries > Object Identifier-Index: `.foo`',
      'sections > [1]',
      'sections > [2]',
    ],
  );
});

test('text inside a YAML block scalar is never taken for keys', async () => {
  const { chunks } = await tight.chunk('ci.yml', WORKFLOW_YAML);
  assert.ok(!chunks.some((c) => c.title.includes('key')));
});

test('several YAML documents are titled by document', async () => {
  const doc = (n: number): string => `kind: Deployment\nmetadata:\n  name: app-${n}\nspec:\n  replicas: ${n}\n  template: ${'x'.repeat(200)}\n`;
  const { chunks } = await tight.chunk('k8s.yaml', `${doc(1)}---\n${doc(2)}`);
  assert.ok(chunks.some((c) => c.title.startsWith('document 1 > ')));
  assert.ok(chunks.some((c) => c.title.startsWith('document 2 > ')));
});

test('10,000 levels of YAML nesting neither throw nor blow the stack', async () => {
  const text = Array.from({ length: 10_000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + '\n';
  const { chunks } = await chunker.chunk('deep.yaml', text);
  assert.ok(chunks.length > 1);
  const last = chunks[chunks.length - 1];
  assert.equal(last?.endLine, 10_000);
});
