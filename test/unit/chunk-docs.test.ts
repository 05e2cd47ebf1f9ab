// AsciiDoc and reStructuredText pages are split at their section titles and titled by their
// title path, as Markdown pages are (chunk-markdown.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker } from '../../src/core/chunk/index.ts';
import type { ChunkDraft } from '../../src/core/types.ts';

const chunker = await createChunker({ chunkMaxBytes: 4096 });
const tight = await createChunker({ chunkMaxBytes: 200 });

function ranges(chunks: ChunkDraft[]): Array<[string, number, number]> {
  return chunks.map((c) => [c.title, c.startLine, c.endLine]);
}

const COPS_ADOC = `////
  Generated: do not edit.
////

= Layout

[#layoutlinelength]
== Layout/LineLength

Checks the length of lines in the source code.

=== Examples

[source,ruby]
----
== not a title, a line of the example
x = 1
----

=== \`AllowURI\` option [[allow-uri]] ===

URIs longer than the limit are allowed.

\`\`\`
= not a title either
\`\`\`

== Layout/EmptyLines
Two blank lines in a row are one too many.
`;

test('an AsciiDoc page is split at its section titles, each with its anchor; block contents are no titles, and the document title names only its own lines', async () => {
  const { language, chunks } = await chunker.chunk('docs/modules/ROOT/pages/cops_layout.adoc', COPS_ADOC);
  assert.equal(language, 'asciidoc');
  assert.deepEqual(ranges(chunks), [
    ['cops_layout.adoc', 1, 3],
    ['Layout', 5, 5],
    ['Layout/LineLength', 7, 10],
    ['Layout/LineLength > Examples', 12, 18],
    ['Layout/LineLength > AllowURI option', 20, 26],
    ['Layout/EmptyLines', 28, 29],
  ]);
  assert.ok(chunks.every((c) => c.kind === 'prose'));
});

test('an AsciiDoc block left open runs to the end of the page, and a block too big for one chunk is cut by lines', async () => {
  const open = await chunker.chunk('open.adoc', `== Before\n\ntext\n\n----\n== inside\n${'code line\n'.repeat(3)}`);
  assert.deepEqual(
    open.chunks.map((c) => c.title),
    ['Before'],
  );
  const big = await tight.chunk('big.adoc', `== Sample\n\n----\n${'a line of the listing\n'.repeat(30)}----\n`);
  assert.ok(big.chunks.length > 1);
  assert.ok(big.chunks.every((c) => c.title.startsWith('Sample') && Buffer.byteLength(c.text) <= 200));
});

const WORKQUEUE_RST = `.. SPDX-License-Identifier: GPL-2.0

====================================
Concurrency Managed Workqueue (cmwq)
====================================

Introduction
============

There are many cases where an asynchronous process execution context
is needed.

The Design
==========

Flags
-----

\`\`WQ_UNBOUND\`\` work items are served by special worker-pools::

    Not a title
    -----------
    alloc_workqueue("name", WQ_UNBOUND, 0);

Transitions are no titles:

----------

Nor is text over a short rule
--
`;

test('a reStructuredText page is split at its titles, levels in the order the page first uses each style', async () => {
  const { language, chunks } = await chunker.chunk('Documentation/core-api/workqueue.rst', WORKQUEUE_RST);
  assert.equal(language, 'restructuredtext');
  assert.deepEqual(ranges(chunks), [
    ['workqueue.rst', 1, 1],
    ['Concurrency Managed Workqueue (cmwq)', 3, 5],
    ['Introduction', 7, 11],
    ['The Design', 13, 14],
    ['The Design > Flags', 16, 30],
  ]);
});

test('a reStructuredText literal block is kept whole, and a page of several top-level titles keeps them in its paths', async () => {
  const sample = `Usage\n=====\n\nRun it like this, ${'from the folder you want to index, '.repeat(3)}and wait::\n\n    fused-search index .\n\n    fused-search search "query"\n    fused-search stats\n\nThen search.\n\nOptions\n=======\n\n\`\`--threads\`\`\n-------------\n\nHow many threads read files.\n`;
  const { chunks } = await tight.chunk('docs/usage.rst', sample);
  assert.deepEqual(
    chunks.map((c) => c.title),
    ['Usage (part 1)', 'Usage (part 2)', 'Options', 'Options > --threads'],
  );
  assert.ok(
    chunks[1]?.text.startsWith('    fused-search index .\n\n    fused-search search'),
    'the literal block, blank line and all, is one piece, not two paragraphs',
  );
});
