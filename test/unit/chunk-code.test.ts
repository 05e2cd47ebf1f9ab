import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadGrammar } from '../../src/core/chunk/grammars.ts';
import { createChunker } from '../../src/core/chunk/index.ts';
import type { ChunkDraft } from '../../src/core/types.ts';

const chunker = await createChunker({ chunkMaxBytes: 4096 });
/** Small enough that the classes below are too big to stay one chunk. */
const tight = await createChunker({ chunkMaxBytes: 400 });

function titles(chunks: ChunkDraft[]): string[] {
  return chunks.map((c) => c.title);
}

function ranges(chunks: ChunkDraft[]): Array<[string, number, number]> {
  return chunks.map((c) => [c.title, c.startLine, c.endLine]);
}

/** Statements that make a function body long; `statement` turns a step number into one line of the language. */
function body(lines: number, indent: string, statement = (i: number) => `const step${i} = compute(${i}, 'some argument text');`): string {
  return Array.from({ length: lines }, (_, i) => indent + statement(i)).join('\n');
}

/** 1-based number of the first line of `text` that contains `needle`. */
function line(text: string, needle: string): number {
  const index = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(index >= 0, `no line contains ${needle}`);
  return index + 1;
}

const STORE_TS = `import { open } from './db.ts';

const DEFAULT_LIMIT = 10;

/** Keeps chunks and answers queries. */
export class ContentStore {
  private readonly rows: string[] = [];

  /** Searches the porter list, then falls back to trigrams. */
  searchWithFallback(query: string): string[] {
${body(4, '    ')}
    return [];
  }

  @memoize()
  count(): number {
${body(4, '    ')}
    return 0;
  }
}

export function helper(): void {}
`;

test('a method inside a class is indexed once, under Class > method', async () => {
  const { language, chunks } = await tight.chunk('src/store.ts', STORE_TS);
  assert.equal(language, 'typescript');
  const t = STORE_TS;
  assert.deepEqual(ranges(chunks), [
    ['store.ts (top level)', 1, 3],
    ['ContentStore', 5, 7],
    ['ContentStore > searchWithFallback', 9, line(t, 'return [];') + 1],
    ['ContentStore > count', line(t, '@memoize'), line(t, 'return 0;') + 2],
    ['helper', line(t, 'helper'), line(t, 'helper')],
  ]);
  assert.equal(chunks.filter((c) => c.text.includes('searchWithFallback(query')).length, 1);
  assert.ok(chunks.every((c) => c.kind === 'code'));
});

test('a class header chunk holds the signature and fields, not the methods', async () => {
  const { chunks } = await tight.chunk('src/store.ts', STORE_TS);
  const header = chunks.find((c) => c.title === 'ContentStore');
  assert.ok(header);
  assert.ok(header.text.startsWith('/** Keeps chunks and answers queries. */\nexport class ContentStore {'));
  assert.ok(header.text.includes('private readonly rows'));
  assert.ok(!header.text.includes('compute('));
});

test('doc comments and decorators directly above a symbol belong to its chunk', async () => {
  const { chunks } = await tight.chunk('src/store.ts', STORE_TS);
  const search = chunks.find((c) => c.title === 'ContentStore > searchWithFallback');
  assert.ok(search?.text.startsWith('  /** Searches the porter list'));
  const count = chunks.find((c) => c.title === 'ContentStore > count');
  assert.ok(count);
  assert.ok(count.text.startsWith('  @memoize()\n  count(): number {'));
  // The closing brace of the class joins the last method instead of becoming a chunk of its own.
  assert.ok(count.text.endsWith('  }\n}'));
});

test('a small class stays one chunk titled by the class', async () => {
  const { chunks } = await chunker.chunk('src/store.ts', STORE_TS);
  assert.deepEqual(titles(chunks), ['store.ts (top level)', 'ContentStore', 'helper']);
  assert.ok(chunks[1]?.text.includes('searchWithFallback') && chunks[1].text.includes('count()'));
});

test('top-level code between symbols is kept and titled by the file', async () => {
  const text = `function a() {\n  return 1;\n}\n\nconsole.log('between');\nlet x = 2;\n\nfunction b() {\n  return 2;\n}\n`;
  const { chunks } = await chunker.chunk('lib/util.js', text);
  assert.deepEqual(ranges(chunks), [
    ['a', 1, 3],
    ['util.js (top level)', 5, 6],
    ['b', 8, 10],
  ]);
});

test("a comment trailing code is not taken for the next symbol's doc comment", async () => {
  const text = `const a = 1; // about a\nfunction f() {\n  return a;\n}\n`;
  const { chunks } = await chunker.chunk('x.ts', text);
  assert.deepEqual(ranges(chunks), [
    ['x.ts (top level)', 1, 1],
    ['f', 2, 4],
  ]);
});

test('exported and default-exported declarations are symbols; multi-line arrow functions are named by their variable', async () => {
  const text = `export const handler = async (event: Event) => {\n  await run(event);\n  return 1;\n};\n\nexport default function () {\n  return 2;\n}\n\nexport interface Options {\n  limit: number;\n}\n\nnamespace Tools {\n  export function sharpen() {}\n}\n`;
  const { chunks } = await chunker.chunk('x.ts', text);
  assert.deepEqual(titles(chunks), ['handler', 'default', 'Options', 'Tools > sharpen']);
  // The namespace's own lines lead and close its only member.
  assert.ok(chunks[3]?.text.startsWith('namespace Tools {') && chunks[3].text.endsWith('}'));
});

/** An object literal of `count` entries, each a few lines, as npm's config definitions are. */
function definitionTable(head: string, count: number, tail = '}'): string {
  const entries = Array.from(
    { length: count },
    (_, i) => `  'option-${i}': new Definition('option-${i}', {\n    default: ${i},\n    description: 'what option ${i} does',\n  }),`,
  );
  return `${head} {\n${entries.join('\n')}\n${tail}\n`;
}

test('an object literal of many entries over the cap is chunked one entry per chunk, titled by its key', async () => {
  for (const [file, head, tail, name] of [
    ['definitions.js', 'const definitions =', '}', 'definitions'],
    ['commands.js', 'module.exports =', '}', 'module.exports'],
    ['routes.ts', 'export const routes =', '} as const', 'routes'],
    ['config.ts', 'export default', '}', 'default'],
  ]) {
    const text = definitionTable(head!, 12, tail);
    const { chunks } = await tight.chunk(file!, text);
    const entries = chunks.filter((c) => c.title.startsWith(`${name} > `));
    assert.equal(entries.length, 12, `${file}: ${titles(chunks).join(' | ')}`);
    assert.equal(entries[3]?.title, `${name} > option-3`);
    assert.deepEqual([entries[3]?.startLine, entries[3]?.endLine], [line(text, "'option-3'"), line(text, "'option-3'") + 3]);
    // Every line is still in exactly one chunk.
    assert.equal(
      chunks.reduce((sum, c) => sum + c.endLine - c.startLine + 1, 0),
      text.split('\n').length - 1,
      file,
    );
  }
  // Under the cap the same table stays one chunk.
  assert.deepEqual(titles((await chunker.chunk('definitions.js', definitionTable('const definitions =', 12))).chunks), ['definitions']);
});

test("an object of a few big members (an ESLint rule's meta and create) is cut by lines as a long function is, not split by member", async () => {
  const text = `module.exports = {\n  meta: {\n    type: 'problem',\n${body(8, '    ', (i) => `option${i}: { type: 'boolean' },`)}\n  },\n  create(context) {\n${body(20, '    ')}\n  },\n};\n`;
  const { chunks } = await tight.chunk('lib/rules/rule.js', text);
  assert.ok(chunks.length > 1, 'over the cap');
  assert.ok(
    chunks.every((c) => /^module\.exports \(part \d+\)$/.test(c.title)),
    titles(chunks).join(' | '),
  );
});

test('test files are chunked by their describe/test calls', async () => {
  const text = `describe('chunker', () => {\n  it('works', () => {\n    expect(1).toBe(1);\n  });\n});\n`;
  const { chunks } = await chunker.chunk('x.test.js', text);
  assert.deepEqual(titles(chunks), ["describe('chunker')"]);
});

test('TSX components are symbols', async () => {
  const text = `export function Button(props: Props) {\n  return <button onClick={props.onClick}>{props.label}</button>;\n}\n`;
  const { language, chunks } = await chunker.chunk('ui/Button.tsx', text);
  assert.equal(language, 'tsx');
  assert.deepEqual(titles(chunks), ['Button']);
});

test('Python methods are titled class > method, decorators and comments included', async () => {
  const statement = (i: number): string => `step${i} = compute(${i}, "some argument text")`;
  const text = `import os\n\n# A store.\nclass Store:\n    """Keeps rows."""\n    limit = 3\n\n    # Cached.\n    @property\n    def size(self):\n${body(4, '        ', statement)}\n        return 1\n\n    def close(self):\n${body(4, '        ', statement)}\n`;
  const { language, chunks } = await tight.chunk('store.py', text);
  assert.equal(language, 'python');
  assert.deepEqual(ranges(chunks), [
    ['store.py (top level)', 1, 1],
    ['Store', 3, 6],
    ['Store > size', 8, line(text, 'return 1')],
    ['Store > close', line(text, 'def close'), line(text, 'def close') + 4],
  ]);
  assert.equal(chunks[2]?.text.split('\n')[1], '    @property');
});

test('Go methods are titled by their receiver type', async () => {
  const text = `package store\n\n// Store keeps rows.\ntype Store struct {\n\trows []string\n}\n\n// Search finds rows.\nfunc (s *Store) Search(q string) []string {\n\treturn nil\n}\n\nfunc New() *Store { return &Store{} }\n`;
  const { chunks } = await chunker.chunk('store.go', text);
  assert.deepEqual(ranges(chunks), [
    ['store.go (top level)', 1, 1],
    ['Store', 3, 6],
    ['Store > Search', 8, 11],
    ['New', 13, 13],
  ]);
});

test('Rust impl blocks are titled by trait and type; attributes and doc comments lead their item', async () => {
  const statement = (i: number): string => `let step${i} = compute(${i}, "some argument text");`;
  const text = `/// A point.\n#[derive(Debug)]\nstruct Point { x: i32 }\n\nimpl fmt::Display for Point {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n${body(5, '        ', statement)}\n        Ok(())\n    }\n\n    fn other(&self) {}\n}\n\nmod geometry {\n    pub fn area() -> i32 { 0 }\n}\n`;
  const { language, chunks } = await tight.chunk('point.rs', text);
  assert.equal(language, 'rust');
  assert.deepEqual(ranges(chunks), [
    ['Point', 1, 3],
    ['fmt::Display for Point', 5, 5],
    ['fmt::Display for Point > fmt', 6, line(text, 'Ok(())') + 1],
    ['fmt::Display for Point > other', line(text, 'fn other'), line(text, 'fn other') + 1],
    ['geometry > area', line(text, 'mod geometry'), line(text, 'mod geometry') + 2],
  ]);
});

test('Java, C#, PHP and Ruby methods are titled by their class', async () => {
  const semicolon = (i: number): string => `run(${i}, "some argument text", more, arguments);`;
  const ruby = (i: number): string => `run(${i}, "some argument text", more, arguments)`;
  const php = (i: number): string => `$this->run(${i}, "some argument text", $more);`;
  const cases: Array<[string, string, string[]]> = [
    [
      'A.java',
      `class A {\n  int x;\n  void run() {\n${body(5, '    ', semicolon)}\n  }\n\n  void stop() {\n${body(3, '    ', semicolon)}\n  }\n}\n`,
      ['A', 'A > run', 'A > stop'],
    ],
    [
      'A.cs',
      `namespace Shop.Orders {\n  class A {\n    int x;\n    void Run() {\n${body(5, '      ', semicolon)}\n    }\n\n    void Stop() {\n${body(3, '      ', semicolon)}\n    }\n  }\n}\n`,
      ['Shop.Orders > A', 'Shop.Orders > A > Run', 'Shop.Orders > A > Stop'],
    ],
    [
      'a.php',
      `<?php\nclass A {\n  private $x;\n  public function run() {\n${body(5, '    ', php)}\n  }\n\n  public function stop() {\n${body(3, '    ', php)}\n  }\n}\n`,
      ['a.php (top level)', 'A', 'A > run', 'A > stop'],
    ],
    [
      'a.rb',
      `module Shop\n  class A\n    attr_reader :x\n    def run\n${body(5, '      ', ruby)}\n    end\n\n    def stop\n${body(3, '      ', ruby)}\n    end\n  end\nend\n`,
      ['Shop > A', 'Shop > A > run', 'Shop > A > stop'],
    ],
  ];
  for (const [file, text, expected] of cases) {
    assert.deepEqual(titles((await tight.chunk(file, text)).chunks), expected, file);
  }
});

test('shell functions and CSS rules are symbols; rules inside @media are titled by the query', async () => {
  const sh = await chunker.chunk('deploy.sh', `#!/bin/sh\nset -e\n\n# Builds it.\nbuild() {\n  make\n}\n`);
  assert.deepEqual(ranges(sh.chunks), [
    ['deploy.sh (top level)', 1, 2],
    ['build', 4, 7],
  ]);
  const css = await tight.chunk(
    'site.css',
    `.btn, .btn:hover {\n  color: red;\n}\n\n@media (max-width: 600px) {\n  .nav {\n${'    margin: 0;\n'.repeat(30)}  }\n}\n`,
  );
  assert.equal(css.chunks[0]?.title, '.btn, .btn:hover');
  assert.ok(titles(css.chunks).some((t) => t.startsWith('@media (max-width: 600px) > .nav')));
});

const KERNEL_C = `// SPDX-License-Identifier: GPL-2.0
#include <linux/kthread.h>

#define MAX_WORKERS(x) \\
\t((x) * 2)

struct worker {
\tint id;
\tchar *name;
};

/**
 * start_worker - start one worker
 * @w: the worker
 */
static int start_worker(struct worker *w)
{
\tif (w->id) {
\t\treturn 1;
\t}
\treturn 0;
}
EXPORT_SYMBOL(start_worker);

#ifdef CONFIG_WORKERS
static void stop_worker(struct worker *w)
{
\tw->id = 0;
}
#endif

SYSCALL_DEFINE1(worker_ctl, int, cmd)
{
\treturn cmd;
}
`;

test("C files are chunked by function, struct and multi-line macro, with the kernel's idioms understood", async () => {
  const { language, chunks } = await chunker.chunk('kernel/worker.c', KERNEL_C);
  assert.equal(language, 'c');
  assert.deepEqual(ranges(chunks), [
    ['worker.c (top level)', 1, 2],
    ['MAX_WORKERS', 4, 5],
    ['worker', 7, 10],
    ['start_worker', 12, 23],
    ['stop_worker', 25, 30],
    ['SYSCALL_DEFINE1(worker_ctl)', 32, 35],
  ]);
  // The doc comment leads the function; EXPORT_SYMBOL right below it joins it.
  assert.ok(chunks[3]?.text.startsWith('/**\n * start_worker'));
  assert.ok(chunks[3]?.text.endsWith('EXPORT_SYMBOL(start_worker);'));
});

test('#if and #endif lines a blank line away from a function go with the function they guard, never as chunks of their own', async () => {
  const text = `static int uart_any(void) {\n    return 0;\n}\n\n#endif\n\n// Implementation of soft UART\n\n#if MICROPY_PY_SOFT_UART\n\nstatic int soft_uart_read(void) {\n    return 1;\n}\n\n#endif // MICROPY_PY_SOFT_UART\n`;
  const { chunks } = await chunker.chunk('extmod/machine_uart.c', text);
  assert.deepEqual(ranges(chunks), [
    ['uart_any', 1, 5],
    ['soft_uart_read', 7, 15],
  ]);
  // Cut by the byte cap, a function does not leave the #if below it as a part of its own.
  const long = `static int parse(void) {\n${body(30, '    ')}\n    return 0;\n}\n\n#if MICROPY_PY_FLOAT\n\nenum {\n    REAL = 0,\n};\n`;
  const parts = (await tight.chunk('py/parsenum.c', long)).chunks;
  assert.ok(parts.length > 2, 'the function is cut');
  assert.ok(
    parts.every((chunk) => !/^\s*#if/.test(chunk.text) || chunk.text.includes('enum')),
    parts.map((c) => `${c.title}: ${c.text.slice(0, 30)}`).join(' | '),
  );
});

test('a macro call at the margin that spans lines is a chunk titled by the macro and the names it defines', async () => {
  const text = `#include "py/runtime.h"\n\n/*\n * Tracepoint for a task switch.\n */\nTRACE_EVENT(sched_switch,\n\tTP_PROTO(bool preempt, struct task_struct *prev),\n\tTP_printk("prev_comm=%s (%d)", __entry->prev_comm)\n);\n\nDEFINE_EVENT(sched_wakeup_template, sched_waking,\n\tTP_PROTO(struct task_struct *p));\n\nMP_DEFINE_CONST_OBJ_TYPE(\n    machine_uart_type,\n    MP_QSTR_UART,\n    make_new, mp_machine_uart_make_new\n    );\n\nLSM_HOOK(int, 0, binder_set_context_mgr,\n\t const struct cred *mgr)\n\nEXPORT_SYMBOL_GPL(a_function_defined_above_it,\n\tanother_argument);\n`;
  const { chunks } = await chunker.chunk('include/trace/events/sched.h', text);
  assert.deepEqual(ranges(chunks), [
    ['sched.h (top level)', 1, 1],
    ['TRACE_EVENT(sched_switch)', 3, 9],
    ['DEFINE_EVENT(sched_wakeup_template, sched_waking)', 11, 12],
    ['MP_DEFINE_CONST_OBJ_TYPE(machine_uart_type, MP_QSTR_UART)', 14, 18],
    // A type names nothing, and an export is of what is above it: these stay code between symbols.
    ['sched.h (top level)', 20, 24],
  ]);
});

test('a C function behind a macro the grammar cannot place is titled by its name, not its declaration', async () => {
  const text = `REDIS_STATIC quicklistNode *quicklistCreateNode(void) {\n    quicklistNode *node;\n    node = zmalloc(sizeof(*node));\n    return node;\n}\n\nstatic struct ftrace_ops kprobe_ftrace_ops __read_mostly = {\n\t.func = kprobe_ftrace_handler,\n\t.flags = FTRACE_OPS_FL_SAVE_REGS,\n};\n`;
  const titles = (await chunker.chunk('src/quicklist.c', text)).chunks.map((c) => c.title);
  assert.equal(titles[0], 'quicklistCreateNode');
  assert.ok(!titles.includes('__read_mostly'), 'a variable keeps its name before the attribute after it');
});

test('a kernel function with a lock annotation between its parameters and its body is one chunk, titled by its name', async () => {
  const text = `/*\n * Report a quiescent state.\n */\nstatic void __maybe_unused\nrcu_report_unblock_qs_rnp(struct rcu_node *rnp, unsigned long flags)\n\t__releases(rnp->lock)\n{\n\tunsigned long gps;\n}\n`;
  assert.deepEqual(ranges((await chunker.chunk('kernel/rcu/tree.c', text)).chunks), [['rcu_report_unblock_qs_rnp', 1, 9]]);
  const sameLine = `static int rcu_scale_read_lock(void) __acquires(RCU)\n{\n\trcu_read_lock();\n\treturn 0;\n}\n`;
  assert.deepEqual(ranges((await chunker.chunk('kernel/rcu/rcuscale.c', sameLine)).chunks), [['rcu_scale_read_lock', 1, 5]], 'after the parameters');
});

test('C++ methods are titled by namespace and class, out-of-class definitions by their qualified name', async () => {
  const text = `namespace store {\n\nclass Index {\n public:\n  int size() const {\n${body(5, '    ')}\n    return 0;\n  }\n  int rows;\n\n  void clear() {\n${body(3, '    ')}\n  }\n};\n\nint Index::count() {\n  return 1;\n}\n\n}  // namespace store\n`;
  const { language, chunks } = await tight.chunk('index.cpp', text);
  assert.equal(language, 'cpp');
  assert.deepEqual(ranges(chunks), [
    ['store > Index', 1, 4],
    ['store > Index > size', 5, line(text, 'int rows') - 1],
    ['store > Index', line(text, 'int rows'), line(text, 'int rows')],
    ['store > Index > clear', line(text, 'void clear'), line(text, '};')],
    ['store > Index > count', line(text, 'Index::count'), line(text, '// namespace store')],
  ]);
});

test('a C++ method returning a reference, and an operator, are titled by their names', async () => {
  const text = `class Pointer {\n public:\n  const Json& get_checked(const Json* ptr) const {\n${body(5, '    ')}\n    return *ptr;\n  }\n  const Pointer& operator*() const {\n${body(5, '    ')}\n    return *this;\n  }\n};\n`;
  assert.deepEqual(titles((await tight.chunk('pointer.hpp', text)).chunks), ['Pointer', 'Pointer > get_checked', 'Pointer > operator*']);
});

test('code the parser cannot make sense of falls back to line windows, still as code', async () => {
  const garbage = Array.from({ length: 60 }, (_, i) => `)))] ((( ${i} }}} {{ ]] [[ ::: ;;; ???`).join('\n');
  const { language, chunks } = await chunker.chunk('broken.ts', garbage);
  assert.equal(language, 'typescript');
  assert.ok(chunks.length >= 1);
  assert.ok(chunks.every((c) => c.kind === 'code' && c.title.startsWith('broken.ts: ')));
});

test('a parse that would take too long is cut short and falls back to line windows', async () => {
  // Error recovery on this input is super-linear in the JavaScript grammar (tens of seconds for
  // a few megabytes); the parse budget (about 6 s for 1 MB) must stop it.
  // The fallback's titles prove the parse was abandoned; the test's timeout catches a hang.
  const text = 'int abcdefgh;\n'.repeat(75_000);
  const { chunks } = await chunker.chunk('slow.js', text);
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((c) => c.title.startsWith('slow.js: ')));
});

test('the chunker keeps working after a cancelled parse', async () => {
  await chunker.chunk('slow.js', 'int abcdefgh;\n'.repeat(75_000));
  const { chunks } = await chunker.chunk('ok.ts', 'function fine() {\n  return 1;\n}\n');
  assert.deepEqual(ranges(chunks), [['fine', 1, 3]]);
});

test('grammars load from an explicit wasm folder, and a wrong folder is reported by name', async () => {
  const wasmDir = fileURLToPath(new URL('../../node_modules/@vscode/tree-sitter-wasm/wasm', import.meta.url));
  const explicit = await createChunker({ chunkMaxBytes: 4096, wasmDir });
  assert.deepEqual(titles((await explicit.chunk('a.go', 'package a\n\nfunc F() {}\n')).chunks), ['a.go (top level)', 'F']);
  await assert.rejects(createChunker({ chunkMaxBytes: 4096, wasmDir: '/nonexistent/wasm' }), /\/nonexistent\/wasm/);
});

test('a grammar loads with the first file of its language: one that will not compile costs only that language its structure', async () => {
  const real = fileURLToPath(new URL('../../node_modules/@vscode/tree-sitter-wasm/wasm', import.meta.url));
  const wasmDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fused-wasm-'));
  for (const file of fs.readdirSync(real)) fs.copyFileSync(path.join(real, file), path.join(wasmDir, file));
  fs.writeFileSync(path.join(wasmDir, 'tree-sitter-ruby.wasm'), 'not a WebAssembly module');
  // Loading every grammar up front would fail here, on Ruby's.
  const lazy = await createChunker({ chunkMaxBytes: 4096, wasmDir });
  assert.deepEqual(titles((await lazy.chunk('a.py', 'def run():\n    return 1\n')).chunks), ['run']);
  const ruby = await lazy.chunk('a.rb', 'def run\n  1\nend\n');
  assert.equal(ruby.language, 'ruby');
  assert.deepEqual(
    ruby.chunks.map((c) => [c.startLine, c.endLine]),
    [[1, 3]],
    'the Ruby file is still indexed, by line window',
  );
  fs.rmSync(wasmDir, { recursive: true, force: true });
});

test('every index a process opens shares one copy of each grammar, so opening a hundred does not exhaust the parser memory', async () => {
  const first = { typescript: await loadGrammar('typescript'), go: await loadGrammar('go') };
  const again = { go: await loadGrammar('go'), typescript: await loadGrammar('typescript') };
  assert.equal(again.typescript, first.typescript);
  assert.equal(again.go, first.go);
  // Chunkers made one after another, as Engine.open makes them, keep working on the shared grammars.
  for (let i = 0; i < 3; i++) {
    const chunker = await createChunker({ chunkMaxBytes: 4096 });
    assert.deepEqual(titles((await chunker.chunk('a.go', 'package a\n\nfunc F() {}\n')).chunks), ['a.go (top level)', 'F']);
  }
});

test('a C++ header with a .h name still has its methods chunked one by one', async () => {
  const text = `#pragma once\nnamespace store {\nclass Index {\n public:\n  int size() const {\n${body(5, '    ')}\n    return 0;\n  }\n  void clear() {\n${body(5, '    ')}\n  }\n};\n}  // namespace store\n`;
  const { language, chunks } = await tight.chunk('include/index.h', text);
  assert.equal(language, 'c');
  assert.deepEqual(titles(chunks), ['index.h (top level)', 'store > Index', 'store > Index > size', 'store > Index > clear']);
});

test('a line holding only a macro (a namespace opener, an access label, an attribute) leaves the classes around it their methods', async () => {
  // nlohmann/json's headers: the macro opens two namespaces, and the grammar cannot know it.
  const text = `#pragma once\n\nNLOHMANN_JSON_NAMESPACE_BEGIN\nnamespace detail\n{\n\nclass serializer\n{\n  public:\n    void dump(int j)\n    {\n${body(5, '        ')}\n    }\n\n  JSON_PRIVATE_UNLESS_TESTED:\n    void dump_escaped(int s)\n    {\n${body(5, '        ')}\n    }\n};\n\n}  // namespace detail\nNLOHMANN_JSON_NAMESPACE_END\n`;
  const { chunks } = await tight.chunk('include/serializer.hpp', text);
  assert.deepEqual(
    [...new Set(titles(chunks))],
    ['serializer.hpp (top level)', 'detail > serializer', 'detail > serializer > dump', 'detail > serializer > dump_escaped'],
  );
  // redis: an attribute macro on the line above a function is the function's, and so is the comment above both.
  const redis = `#include "server.h"\n\n/* Count the bits set. */\nATTRIBUTE_TARGET_POPCNT\nlong long redisPopcount(void *s, long count) {\n${body(5, '    ')}\n    return 0;\n}\n`;
  assert.deepEqual(ranges((await tight.chunk('src/bitops.c', redis)).chunks), [
    ['bitops.c (top level)', 1, 1],
    ['redisPopcount', 3, line(redis, 'return 0') + 1],
  ]);
  // The last line of a multi-line #define is the directive's, not a macro line above the next one.
  const defines = `#define FIRST_CMD \\\n\tSEL_WORD1\n#define SECOND_CMD \\\n\tSEL_WORD0\n`;
  assert.deepEqual(
    ranges((await tight.chunk('hsi.h', defines)).chunks).map(([, start, end]) => [start, end]),
    [
      [1, 2],
      [3, 4],
    ],
  );
});

test('a header whose extern "C" braces open and close in separate #if blocks still has its symbols', async () => {
  // Twice in one header guard, this pattern leaves tree-sitter with an ERROR as the root node.
  const pair = (body: string): string => `#if defined(__cplusplus)\nextern "C" {\n#endif\n\n${body}\n#if defined(__cplusplus)\n}\n#endif\n\n`;
  const text = `#ifndef X_H\n#define X_H\n\n${pair('struct point {\n\tint x;\n};\n')}${pair('static inline int origin(void)\n{\n\treturn 0;\n}\n')}#endif /* X_H */\n`;
  const { chunks } = await chunker.chunk('x.h', text);
  assert.deepEqual(
    chunks.filter((c) => !c.title.endsWith('(top level)')).map((c) => c.title),
    ['point', 'origin'],
  );
});
