import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChunker } from '../../src/core/chunk/index.ts';
import { detectLanguage } from '../../src/core/chunk/language.ts';

test('files are named by VS Code language ids, whatever the case of their extension', async () => {
  const expected: Record<string, string> = {
    'src/a.ts': 'typescript',
    'src/a.tsx': 'tsx',
    'lib/a.mjs': 'javascript',
    'a.py': 'python',
    'a.go': 'go',
    'a.rs': 'rust',
    'A.java': 'java',
    'include/linux/list.h': 'c',
    'a.cc': 'cpp',
    'A.cs': 'csharp',
    'a.rb': 'ruby',
    'a.php': 'php',
    'a.sh': 'shellscript',
    'a.css': 'css',
    'docs/README.MD': 'markdown',
    'package.json': 'json',
    'tsconfig.json': 'jsonc',
    '.github/workflows/ci.yml': 'yaml',
    Makefile: 'makefile',
    'Documentation/index.rst': 'restructuredtext',
    'notes.txt': 'plaintext',
    'data.unknownext': 'plaintext',
    'windows\\path\\Main.java': 'java',
  };
  for (const [path, language] of Object.entries(expected)) assert.equal(detectLanguage(path), language, path);
});

test('extensionless scripts are recognised by their shebang', async () => {
  assert.equal(detectLanguage('bin/tool', '#!/usr/bin/env python3.11'), 'python');
  assert.equal(detectLanguage('bin/tool', '#!/bin/bash -e'), 'shellscript');
  assert.equal(detectLanguage('bin/tool', '#!/usr/bin/env -S node --no-warnings'), 'javascript');
  assert.equal(detectLanguage('bin/tool', '#!/usr/bin/awk -f'), 'plaintext');
  assert.equal(detectLanguage('bin/tool', 'plain first line'), 'plaintext');
  // An extension wins over a shebang.
  assert.equal(detectLanguage('tool.rb', '#!/bin/sh'), 'ruby');
});

test('code stays code without a grammar, and configuration counts as code; documentation is prose', async () => {
  const chunker = await createChunker({ chunkMaxBytes: 4096 });
  const kinds = async (file: string, text: string): Promise<string[]> => [...new Set((await chunker.chunk(file, text)).chunks.map((c) => c.kind))];
  assert.deepEqual(await kinds('Main.kt', 'fun main() {\n    println("hi")\n}\n'), ['code']);
  assert.deepEqual(await kinds('Makefile', 'all:\n\tcc -o x x.c\n'), ['code']);
  assert.deepEqual(await kinds('Cargo.toml', '[package]\nname = "x"\n'), ['code']);
  assert.deepEqual(await kinds('config.yaml', 'a: 1\n'), ['code']);
  assert.deepEqual(await kinds('index.rst', 'Title\n=====\n\nText.\n'), ['prose']);
  assert.deepEqual(await kinds('notes', 'Just words.\n'), ['prose']);
});
