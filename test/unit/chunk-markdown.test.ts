import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker } from '../../src/core/chunk/index.ts';
import { runScript, srcModule } from './helpers/child-script.ts';

const chunker = await createChunker({ chunkMaxBytes: 4096 });

const README = `Intro text before any heading.

# Install

Run the installer.

## From source

\`\`\`sh
# this is a shell comment, not a heading
make install
\`\`\`

## From npm

npm i fused-search

# Usage

Search things.
`;

test('markdown sections are titled by their heading path', async () => {
  const { language, chunks } = await chunker.chunk('docs/README.md', README);
  assert.equal(language, 'markdown');
  assert.deepEqual(
    chunks.map((c) => [c.title, c.startLine, c.endLine]),
    [
      ['README.md', 1, 1],
      ['Install', 3, 5],
      ['Install > From source', 7, 12],
      ['Install > From npm', 14, 16],
      ['Usage', 18, 20],
    ],
  );
  assert.ok(chunks.every((c) => c.kind === 'prose'));
});

test('a fenced block with # lines stays whole and is not split into headings', async () => {
  const { chunks } = await chunker.chunk('README.md', README);
  const source = chunks.find((c) => c.title === 'Install > From source');
  assert.ok(source?.text.includes('# this is a shell comment, not a heading\nmake install\n```'));
  assert.ok(!chunks.some((c) => c.title.includes('this is a shell comment')));
});

test('tilde fences hide headings too, and an unclosed fence runs to the end of the file', async () => {
  const text = '# A\n~~~\n# not a heading\n~~~\n# B\n```\n# still code\n';
  const { chunks } = await chunker.chunk('x.md', text);
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['A', 'B'],
  );
});

test('triple backticks closed on the same line are inline code, not a fence that hides later headings', async () => {
  const { chunks } = await chunker.chunk('x.md', '# A\n```npm i``` installs it.\n# B\n');
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['A', 'B'],
  );
});

test('setext headings are recognised, YAML front matter is not a heading', async () => {
  const text = '---\ntitle: x\n---\nGuide\n=====\n\ntext\n\nDetails\n-------\nmore\n';
  const { chunks } = await chunker.chunk('guide.markdown', text);
  assert.deepEqual(
    chunks.map((c) => [c.title, c.startLine, c.endLine]),
    [
      ['guide.markdown', 1, 3],
      ['Guide', 4, 7],
      ['Guide > Details', 9, 11],
    ],
  );
});

test('a thematic break after a blank line is content, not a heading', async () => {
  const text = '# A\n\npara\n\n---\n\nafter\n';
  const { chunks } = await chunker.chunk('x.md', text);
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['A'],
  );
});

test('heading titles drop markdown syntax a reader does not see', async () => {
  const text = '# The `createChunker` **options**\n\ntext\n\n## See [the docs](https://x.y) and `__init__` ##\n';
  const { chunks } = await chunker.chunk('x.md', text);
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['The createChunker options', 'The createChunker options > See the docs and __init__'],
  );
});

test('heading titles drop the HTML a reader does not see, and keep what only looks like a tag', async () => {
  const text = [
    '# Troubleshooting <!-- keep short -->',
    '## <a id="serialize-nulls"></a> Properties are not serialized',
    '## `<http_config>`',
    '## access.setMfa(spec) -> Promise<Boolean>',
    '## Vec<T> and <kbd>Ctrl</kbd>+<kbd>C</kbd>',
    '',
  ].join('\n\ntext\n\n');
  const { chunks } = await chunker.chunk('x.md', text);
  assert.deepEqual(
    chunks.map((c) => c.title),
    [
      'Troubleshooting',
      'Troubleshooting > Properties are not serialized',
      'Troubleshooting > <http_config>',
      'Troubleshooting > access.setMfa(spec) -> Promise<Boolean>',
      'Troubleshooting > Vec<T> and Ctrl+C',
    ],
  );
});

test('a deeper heading after a shallower one pops the heading path', async () => {
  const text = '# A\n### A3\n## B2\n#### B4\n# C\n';
  const { chunks } = await chunker.chunk('x.md', text);
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['A', 'A > A3', 'A > B2', 'A > B2 > B4', 'C'],
  );
});

test('a long section is split at paragraphs under the cap and keeps its title with a part number', async () => {
  const small = await createChunker({ chunkMaxBytes: 200 });
  const paragraph = (n: number): string => `Paragraph ${n} ${'word '.repeat(20)}`.trim();
  const text = `# Long\n\n${[1, 2, 3, 4, 5].map(paragraph).join('\n\n')}\n`;
  const { chunks } = await small.chunk('x.md', text);
  assert.ok(chunks.length > 1);
  chunks.forEach((c, i) => {
    assert.equal(c.title, `Long (part ${i + 1})`);
    assert.ok(Buffer.byteLength(c.text) <= 200);
    // Cuts fall between paragraphs: no chunk starts or ends inside one.
    assert.match(c.text, /^(# Long|Paragraph \d)/);
  });
});

test('a fence smaller than the cap is never cut, even when the section around it is', async () => {
  const small = await createChunker({ chunkMaxBytes: 300 });
  const fence = '```js\n' + Array.from({ length: 8 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n```';
  const text = `# Code\n\n${'intro '.repeat(30)}\n\n${fence}\n\n${'outro '.repeat(30)}\n`;
  const { chunks } = await small.chunk('x.md', text);
  assert.ok(chunks.length >= 3);
  assert.ok(chunks.some((c) => c.text === fence));
});

// The shape of npm's command pages and of a package README: a title with badges, a tagline and
// links mostly, a table of contents, sections, and a "See also" list of links to other pages.
const PAGE_WITH_NAVIGATION = `# fastq

[![ci](https://github.com/mcollina/fastq/workflows/ci/badge.svg)](https://github.com/mcollina/fastq/actions)
[![npm version](https://badge.fury.io/js/fastq.svg)](https://badge.fury.io/js/fastq)
[![Dependency Status](https://david-dm.org/mcollina/fastq/status.svg)](https://david-dm.org/mcollina/fastq)

Fast, in memory work queue.
[Installing fastq](#install) · [Using fastq with promises](#usage-promises) · [The API of fastq](#api)
· [Benchmarks against other queues](./bench.md) · [Contributing guide](#contributing)

## Table of Contents

* [Install](#install)
* [Usage (promises)](#usage-promises)
* <a href="#api">API</a>

## Install

Run \`npm i fastq\`. See [the API](#api) and [the benchmarks](./bench.md).

## API

Call \`fastq(worker, concurrency)\` to make a queue; \`push\` adds a task.

### See Also

* [npm install](/commands/npm-install)
* [npm ci](/commands/npm-ci)
* [package-lock.json](/configuring-npm/package-lock-json)

[npm install]: /commands/npm-install
`;

test('a table of contents and a "See also" list of links are not indexed; a README\'s title with its badges is', async () => {
  const { chunks } = await chunker.chunk('README.md', PAGE_WITH_NAVIGATION);
  assert.deepEqual(
    chunks.map((c) => [c.title, c.startLine, c.endLine]),
    [
      ['fastq', 1, 9],
      ['fastq > Install', 17, 19],
      ['fastq > API', 21, 23],
    ],
  );
  assert.ok(chunks[0]!.text.includes('Fast, in memory work queue.'), 'the title section keeps its tagline among the badges');
  assert.ok(!chunks.some((c) => c.text.includes('* [Usage (promises)](#usage-promises)') || c.text.includes('/commands/npm-ci')));
});

test('.mdx files are chunked as markdown', async () => {
  const { language, chunks } = await chunker.chunk('page.mdx', "import X from './x';\n\n# Title\n\n<X />\n");
  assert.equal(language, 'mdx');
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['page.mdx', 'Title'],
  );
});

test('a line of a megabyte is never a heading, nor the text of one, and a file holding such lines, or lines of brackets, is chunked at once', () => {
  // The expressions that read headings take time growing faster than the square of a line's
  // length: a `# ` line of 64 K characters, most of them spaces, took 9 s, one of a megabyte hours.
  // A child process, so that a stall fails the test instead of stalling the suite.
  const script = [
    `import { createChunker } from ${srcModule('core/chunk/index.ts')};`,
    'const chunker = await createChunker({ chunkMaxBytes: 4096 });',
    // Lines of brackets that open no link: each once scanned to the line's end for its close.
    "const brackets = ['['.repeat(300_000), '<a '.repeat(100_000), '[x]('.repeat(100_000)];",
    "const text = ['# a' + ' '.repeat(1_000_000) + 'x', '', '# Usage', '', 'Search things.', '', ...brackets, '', '*a '.repeat(300_000), '==='].join('\\n');",
    "const { chunks } = await chunker.chunk('notes.md', text);",
    // Long sections are cut into parts (`Usage (part 2)`): one title each.
    "process.stdout.write(JSON.stringify([...new Set(chunks.map((c) => c.title.replace(/ \\(part \\d+\\)$/, '')))]));",
  ].join('\n');
  const run = runScript(script, { timeoutMs: 30_000 });
  assert.equal(run.error, undefined, 'chunked within 30 s');
  assert.deepEqual(JSON.parse(run.stdout), ['notes.md', 'Usage']);
});
