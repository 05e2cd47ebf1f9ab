import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker, detectLanguage } from '../../src/core/chunk/index.ts';
import type { ChunkDraft } from '../../src/core/types.ts';

const chunker = await createChunker({ chunkMaxBytes: 4096 });
const tight = await createChunker({ chunkMaxBytes: 300 });

function ranges(chunks: ChunkDraft[]): Array<[string, number, number]> {
  return chunks.map((c) => [c.title, c.startLine, c.endLine]);
}

test('paragraphs of plain text are merged up to the cap and titled by file and first line', async () => {
  const text = 'Meeting notes\n\nWe agreed on the plan.\n\n\nNext steps follow.\n';
  const { language, chunks } = await chunker.chunk('notes.txt', text);
  assert.equal(language, 'plaintext');
  assert.deepEqual(ranges(chunks), [['notes.txt: Meeting notes', 1, 6]]);
  assert.equal(chunks[0]?.kind, 'prose');
});

test('paragraphs that do not fit together start new chunks at a paragraph boundary', async () => {
  const paragraph = (n: number): string => Array.from({ length: 3 }, (_, i) => `Paragraph ${n} line ${i} with some words in it.`).join('\n');
  const text = [1, 2, 3, 4].map(paragraph).join('\n\n');
  const { chunks } = await tight.chunk('notes.txt', text);
  assert.deepEqual(ranges(chunks), [
    ['notes.txt: Paragraph 1 line 0 with some words in it.', 1, 7],
    ['notes.txt: Paragraph 3 line 0 with some words in it.', 9, 15],
  ]);
});

test('a log without blank lines becomes overlapping windows of at most 40 lines', async () => {
  const text = Array.from({ length: 100 }, (_, i) => `2024-01-01 12:00:${String(i).padStart(2, '0')} INFO worker finished step ${i} of the job`).join('\n');
  const { language, chunks } = await chunker.chunk('logs/app.log', text);
  assert.equal(language, 'log');
  assert.deepEqual(
    chunks.map((c) => [c.startLine, c.endLine]),
    [
      [1, 40],
      [36, 75],
      [71, 100],
    ],
  );
  assert.equal(chunks[1]?.title, 'app.log: 2024-01-01 12:00:35 INFO worker finished step 35 of the job');
});

test('windows shrink to fit the byte cap and still overlap', async () => {
  const text = Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
  const { chunks } = await tight.chunk('data.csv', text);
  assert.ok(chunks.length > 5);
  for (const [i, chunk] of chunks.entries()) {
    assert.ok(Buffer.byteLength(chunk.text) <= 300);
    const next = chunks[i + 1];
    if (next) assert.ok(next.startLine <= chunk.endLine && next.startLine > chunk.startLine);
  }
  assert.equal(chunks[chunks.length - 1]?.endLine, 40);
});

test('files without an extension are text, unless a shebang names their language', async () => {
  assert.equal((await chunker.chunk('LICENSE', 'MIT License\n')).language, 'plaintext');
  const script = await chunker.chunk('bin/deploy', '#!/usr/bin/env bash\nset -e\n\nrun() {\n  make\n}\n');
  assert.equal(script.language, 'shellscript');
  assert.ok(script.chunks.some((c) => c.title === 'run'));
});

test('a file of blank lines has no chunks', async () => {
  assert.deepEqual((await chunker.chunk('empty.txt', '\n \n\t\n')).chunks, []);
  assert.deepEqual((await chunker.chunk('empty.ts', '')).chunks, []);
  assert.deepEqual((await chunker.chunk('empty.md', '\n\n')).chunks, []);
});

test("the kernel's Kconfig menus are code, each chunk titled by the entry it opens or continues, not by the licence header", async () => {
  const help = (n: number) => Array.from({ length: n }, (_, i) => `\t  line ${i} of the help text of this option`).join('\n');
  const text = [
    '# SPDX-License-Identifier: GPL-2.0-only',
    '#',
    '# RCU-related configuration options',
    '#',
    '',
    'menu "RCU Subsystem"',
    '',
    'config TREE_RCU',
    '\tbool',
    '\tdefault y if SMP',
    '',
    'config PREEMPT_RCU',
    '\tbool',
    '\tselect TREE_RCU',
    '\thelp',
    help(20),
    '',
    'endmenu',
  ].join('\n');
  const { language, chunks } = await tight.chunk('kernel/rcu/Kconfig', text);
  assert.equal(language, 'kconfig');
  assert.ok(chunks.every((c) => c.kind === 'code'));
  assert.equal(chunks[0]?.title, 'Kconfig: menu "RCU Subsystem"');
  const helpWindows = chunks.filter((c) => c.text.includes('of the help text'));
  assert.ok(helpWindows.length > 1, `the long help text is cut into windows: ${helpWindows.length}`);
  assert.deepEqual([...new Set(helpWindows.map((c) => c.title))], ['Kconfig: config PREEMPT_RCU'], 'a window inside the help text is titled by its option');
  assert.equal(detectLanguage('kernel/Kconfig.preempt'), 'kconfig');
});

test('a yacc grammar is code, a chunk inside a rule titled by that rule', async () => {
  const action = (n: number) => Array.from({ length: n }, (_, i) => `\tprintd(DEBUG_PARSE, "%s:%d: step ${i}\\n", cur_filename, cur_lineno);`).join('\n');
  const text = [
    '%{',
    '// SPDX-License-Identifier: GPL-2.0',
    '#include <stdio.h>',
    '%}',
    '%%',
    'config_entry_start: T_CONFIG nonconst_symbol T_EOL',
    '{',
    action(12),
    '};',
    '',
  ].join('\n');
  const { language, chunks } = await tight.chunk('scripts/kconfig/parser.y', text);
  assert.equal(language, 'yacc');
  const inside = chunks.filter((c) => c.text.includes('step 11'));
  assert.equal(inside[0]?.title, 'parser.y: config_entry_start: T_CONFIG nonconst_symbol T_EOL');
  assert.equal(detectLanguage('scripts/kconfig/lexer.l'), 'lex');
});

test('a text without letters is titled by its line range', async () => {
  const { chunks } = await chunker.chunk('rule.txt', '-----\n=====\n');
  assert.equal(chunks[0]?.title, 'rule.txt: lines 1–2');
});

test('code without a grammar is titled by what it defines, not by its licence header, and a window cut inside a definition by the one it continues', async () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `\tmovq ${i * 8}(%rsi), %r8\n\tmovq %r8, ${i * 8}(%rdi)`).join('\n');
  const text = [
    '/* SPDX-License-Identifier: GPL-2.0-only */',
    '#include <linux/linkage.h>',
    '.Lshort:',
    'SYM_FUNC_START(copy_page_rep)',
    body(60),
    '1:\tmovl %ecx, %edx',
    '.Lcopy_tail:',
    body(60),
    '\tRET',
    'SYM_FUNC_END(copy_page_rep)',
    'EXPORT_SYMBOL(copy_page_rep)',
  ].join('\n');
  const { language, chunks } = await chunker.chunk('arch/x86/lib/copy_page.S', text);
  assert.equal(language, 'asm');
  const windows = chunks.filter((c) => c.text.includes('movq'));
  assert.ok(windows.length > 2, `a long function is cut into windows: ${windows.length}`);
  assert.deepEqual(
    [...new Set(windows.map((c) => c.title))],
    ['copy_page.S: SYM_FUNC_START(copy_page_rep)'],
    'the first window is titled by the function it opens, the others by the one they carry on: not a local label, its end or its export',
  );

  const makefile = '# SPDX-License-Identifier: GPL-2.0\n# Makefile for the boot code.\n\nobj-y := setup.o\n\ninstall:\n\tsh ./install.sh\n';
  assert.deepEqual(
    (await chunker.chunk('arch/x86/boot/Makefile', makefile)).chunks.map((c) => c.title),
    ['Makefile: obj-y := setup.o'],
  );
  assert.deepEqual(
    (await chunker.chunk('NOTICE.txt', '# SPDX-License-Identifier: GPL-2.0\nSome notes.\n')).chunks.map((c) => c.title),
    ['NOTICE.txt: # SPDX-License-Identifier: GPL-2.0'],
    'prose keeps its first line: a heading marker there is a heading',
  );
});
