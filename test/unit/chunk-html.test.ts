import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker } from '../../src/core/chunk/index.ts';

const chunker = await createChunker({ chunkMaxBytes: 4096 });

// The shape of npm's rendered docs: a head with its styles and a script whose string holds a
// heading, a title broken over lines, a table of contents, then the page's sections.
const PAGE = `<!DOCTYPE html><html><head>
<title>npx</title>
<style>
h2 { color: red; }
</style>
<script>const banner = '<h2>not a heading</h2>';</script>
</head><body>
<header><h1>
  <span>npx</span>
  <span class="version">@11.19.1</span>
</h1></header>
<section id="table_of_contents">
<h2 id="table-of-contents">Table of contents</h2>
<div><ul><li><a href="#synopsis">Synopsis</a></li><li><a href="#description">Description</a></li><li><a href="#npx-vs-npm-exec">npx vs npm exec</a></li></ul></div>
</section>
<div id="_content"><h3 id="synopsis">Synopsis</h3>
<pre><code>npx -- &lt;pkg&gt;[@&lt;version&gt;] [args...]

npx --package=&lt;pkg&gt; -- &lt;cmd&gt;
</code></pre>
<h3 id="description">Description</h3>
<p>This command runs a command from a package, <a href="../commands/npm-run.html">as npm run does</a>,
installing the package into the npm cache first when it is not present.</p>
<h3 id="npx-vs-npm-exec"><code>npx</code> vs <code>npm&nbsp;exec</code></h3>
<p>When run via the npx binary, all flags must come before positional arguments.</p>
</div>
</body></html>
`;

test('an HTML page is chunked at its headings and titled by their text, its <h1> titling the page’s first section only', async () => {
  const { language, chunks } = await chunker.chunk('docs/output/commands/npx.html', PAGE);
  assert.equal(language, 'html');
  assert.deepEqual(
    chunks.map((c) => [c.title, c.startLine, c.endLine]),
    [
      ['npx.html', 1, 7],
      ['npx @11.19.1', 8, 12],
      ['Synopsis', 16, 20],
      ['Description', 21, 23],
      ['npx vs npm exec', 24, 27],
    ],
  );
  assert.ok(chunks.every((c) => c.kind === 'prose'));
});

test('an HTML table of contents is not indexed, a heading in a script is no heading, and a <pre> is not cut', async () => {
  const { chunks } = await chunker.chunk('npx.html', PAGE);
  assert.ok(!chunks.some((c) => c.text.includes('href="#synopsis"') || c.title.includes('Table of contents')), 'the list of links is left out');
  assert.ok(!chunks.some((c) => c.title.includes('not a heading')));
  const synopsis = chunks.find((c) => c.title.endsWith('Synopsis'));
  assert.ok(synopsis?.text.includes('npx --package=&lt;pkg&gt; -- &lt;cmd&gt;\n</code></pre>'), 'the <pre> block stays whole, blank line and all');
});

test('a section with a link or two in its prose is indexed; only a list of links is navigation', async () => {
  const { chunks } = await chunker.chunk('npx.html', PAGE);
  assert.ok(chunks.some((c) => c.title.endsWith('Description') && c.text.includes('as npm run does')));
  const links = `<h2>See also</h2>\n<p><a href="a.html">one</a>, <a href="b.html">two</a>.</p>\n`;
  const twoLinks = await chunker.chunk('x.html', links);
  assert.deepEqual(
    twoLinks.chunks.map((c) => c.title),
    ['See also'],
  );
});

test('a broken HTML page still chunks: unclosed tags, a heading never closed, no html or body', async () => {
  const broken = '<h2>Options\n<p>Some <b>bold <i>text\n<pre>unclosed\n\ncode\n<h3 class="x">Later</h3>\n<p>more';
  const { chunks } = await chunker.chunk('broken.html', broken);
  assert.ok(chunks.length > 0);
  assert.ok(chunks.every((c, i) => c.startLine <= c.endLine && (i === 0 || c.startLine > chunks[i - 1]!.endLine)));
  assert.equal(chunks[0]!.startLine, 1);
  assert.equal(chunks.at(-1)!.endLine, 7, 'the last line is indexed');
});

test('bare tags above the first heading are no chunk of their own, a head with a style is', async () => {
  const bare = await chunker.chunk('wombat.html', '<html><body>\n<h1>Wombat scheduler</h1>\n<p>It pauses the nightly import.</p>\n</body></html>\n');
  assert.deepEqual(
    bare.chunks.map((c) => [c.title, c.startLine, c.endLine]),
    [['Wombat scheduler', 2, 4]],
  );
  const styled = await chunker.chunk('npx.html', PAGE);
  assert.equal(styled.chunks[0]!.title, 'npx.html', 'the head, its style and script, is indexed under the file name');
});

test('an HTML page with no heading is one section titled by its file name, cut under the byte cap', async () => {
  const rows = Array.from({ length: 400 }, (_, i) => `<tr><td>row ${i}</td><td>value ${i * 7}</td></tr>`).join('\n');
  const { chunks } = await chunker.chunk('table.html', `<table>\n${rows}\n</table>\n`);
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((c) => c.title.startsWith('table.html') && Buffer.byteLength(c.text) <= 4096));
  assert.equal(chunks.at(-1)!.endLine, 402);
});
