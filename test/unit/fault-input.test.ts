// Fault suite, hostile input: one folder holding every kind of odd or hostile file at once, indexed
// by a whole Engine.sync. Each file is indexed or skipped with a counted reason; the sync never
// throws or hangs; the good files stay searchable with the right line ranges; files deleted,
// truncated or replaced by a file while the sync runs converge on the next sync. The crawl and
// chunk suites test each piece alone; this one tests that they hold together.
//
// The sync runs in a child process as `nobody` when the tests run as root, since root reads
// anything and an unreadable file would not be unreadable.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOBODY, runningAsRoot, runScript, srcModule } from './helpers/child-script.ts';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fault-input-'));
const root = path.join(base, 'work');
const dbFile = path.join(base, 'db', 'index.db');
after(() => {
  // chmod back first: rmSync cannot descend into a folder it cannot read when not root.
  for (const p of [path.join(root, 'unreadable-dir'), path.join(root, 'unreadable.txt')]) fs.chmodSync(p, 0o755);
  fs.rmSync(base, { recursive: true, force: true });
});

/** Unique words planted in files, with the 1-based line each sits on. */
interface Marker {
  file: string;
  word: string;
  line: number;
}
const markers: Marker[] = [];

function write(relPath: string, content: string | Uint8Array): void {
  const absPath = path.join(root, relPath);
  fs.mkdirSync(path.dirname(absPath), { recursive: true });
  fs.writeFileSync(absPath, content);
}

/** `count` lines of prose with `word` on line `at`, joined by `eol`; paragraphs of 8 lines, so the file splits into many chunks. */
function lines(count: number, at: number, word: string, eol: string): string {
  const out: string[] = [];
  for (let i = 1; i <= count; i++) {
    if (i % 9 === 0) out.push('');
    else out.push(i === at ? `the ${word} sits on this line` : `line ${i} of plain filler prose about nothing much`);
  }
  return out.join(eol) + eol;
}

before(() => {
  fs.mkdirSync(root, { recursive: true });
  const planted = (file: string, word: string, line: number, content: string | Uint8Array) => {
    write(file, content);
    markers.push({ file, word, line });
  };
  // Good files, some with awkward names.
  planted('good/readme.md', 'zebrafinch', 3, '# Birds\n\nThe zebrafinch sings.\n');
  planted('good/main.ts', 'computeQuokka', 2, '// quokka math\nexport function computeQuokka(x: number): number {\n  return x + 1;\n}\n');
  planted('names/with space.txt', 'spacemarker', 1, 'spacemarker\n');
  planted('names/ünïcødé-名前.md', 'unicodemarker', 1, 'unicodemarker\n');
  planted(`names/quote"s 'single'.txt`, 'quotemarker', 1, 'quotemarker\n');
  planted('names/-leading-dash.txt', 'dashmarker', 1, 'dashmarker\n');
  planted('names/[glob]*?.txt', 'globmarker', 1, 'globmarker\n');
  planted('names/{a,b}!(x).txt', 'bracemarker', 1, 'bracemarker\n');
  // Encodings and line endings.
  planted(
    'enc/utf16.txt',
    'utfsixteenmarker',
    2,
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('first line\r\nutfsixteenmarker here\r\n', 'utf16le')]),
  );
  planted('enc/crlf.txt', 'crlfmarker', 250, lines(300, 250, 'crlfmarker', '\r\n'));
  planted('enc/lonecr.txt', 'lonecrmarker', 250, lines(300, 250, 'lonecrmarker', '\r'));
  planted('enc/mixed.txt', 'mixedmarker', 5, 'a\r\nb\rc\nd\r\nthe mixedmarker\n');
  // Size and shape extremes that are still indexed.
  planted('big/no-newline.txt', 'tailmarker', 1, 'word '.repeat(199_990) + 'tailmarker');
  planted('big/empty-lines.txt', 'emptylinesmarker', 100_001, '\n'.repeat(100_000) + 'emptylinesmarker\n');
  write('big/identifier.txt', 'q'.repeat(1_000_000) + '\n');
  planted('big/nested.json', 'nestedmarker', 1, '{"a":'.repeat(10_000) + '"nestedmarker"' + '}'.repeat(10_000));
  planted(
    'big/broken.ts',
    'brokenmarker',
    4,
    'function ( {{{ class ]]] =>\n) } interface <<<\n\nconst brokenmarker = ;;; }}}\n' + ') } interface <<< if while\n'.repeat(500),
  );
  // Skipped with a reason.
  write('skip/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
  write('skip/nul.txt', 'hello\0nulmarker\n');
  write('skip/latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6c, 0x61, 0x74, 0x69, 0x6e, 0x0a]));
  write('skip/minified.js', 'var a=1;'.repeat((50 * 1024 * 1024) / 8));
  write('unreadable.txt', 'secretmarker\n');
  write('unreadable-dir/inside.txt', 'hiddenmarker\n');
  fs.symlinkSync('..', path.join(root, 'skip', 'loop'));
  fs.symlinkSync(os.tmpdir(), path.join(root, 'skip', 'outside-dir'));
  fs.symlinkSync('/etc/hostname', path.join(root, 'skip', 'outside-file'));
  // Changed while the sync runs (see the child script).
  write('zz/delete-me.txt', 'deletedmarker\n');
  write('zz/truncate-me.txt', 'truncatedmarker '.repeat(1000) + '\n');
  write('zz/folder/inside.txt', 'foldermarker\n');
  for (let i = 0; i < 40; i++) write(`zz/filler/${String(i).padStart(2, '0')}.md`, `# Filler ${i}\n\nfillermarker${i}\n`);

  if (runningAsRoot) {
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, base]);
    fs.chmodSync(base, 0o755);
  }
  fs.chmodSync(path.join(root, 'unreadable.txt'), 0o000);
  fs.chmodSync(path.join(root, 'unreadable-dir'), 0o000);
});

interface ChildReport {
  first: { complete: boolean; skipped: Record<string, number>; skippedFiles: Array<{ path: string; reason: string }>; files: number };
  second: { complete: boolean; added: number; updated: number; removed: number; files: number };
  paths: string[];
  found: Record<string, Array<{ path: string; startLine: number; endLine: number; lineOfWord: number | null }>>;
  misses: Record<string, string[]>;
  chunkShape: Record<string, { chunks: number; contiguous: boolean }>;
  ms: number;
}

function runSync(): ChildReport {
  // The first progress report arrives while the crawl is still going or the reads have just
  // started: the folder changes under the sync right then.
  const script = `
    import fs from 'node:fs';
    import path from 'node:path';
    import { Engine } from ${srcModule('core/engine.ts')};
    const [root, dbFile, markersJson] = process.argv.slice(1);
    const markers = JSON.parse(markersJson);
    const started = performance.now();
    const engine = await Engine.open({ root, dbFile });
    let mutated = false;
    const first = await engine.sync({ onProgress: () => {
      if (mutated) return;
      mutated = true;
      fs.rmSync(path.join(root, 'zz/delete-me.txt'));
      fs.truncateSync(path.join(root, 'zz/truncate-me.txt'), 0);
      fs.rmSync(path.join(root, 'zz/folder'), { recursive: true });
      fs.writeFileSync(path.join(root, 'zz/folder'), 'nowafilemarker\\n');
    } });
    const second = await engine.sync();
    const found = {};
    for (const m of markers) {
      found[m.word] = engine.searchIndexed(m.word, { limit: 5 }).results.map((r) => {
        const chunk = engine.chunk(r.chunkId);
        const at = chunk.text.split('\\n').findIndex((l) => l.includes(m.word));
        return { path: r.path, startLine: r.startLine, endLine: r.endLine, lineOfWord: at === -1 ? null : r.startLine + at };
      });
    }
    const misses = {};
    for (const word of ['nulmarker', 'secretmarker', 'hiddenmarker', 'deletedmarker', 'truncatedmarker', 'foldermarker', 'nowafilemarker']) {
      misses[word] = engine.searchIndexed(word, { fuzzy: 'off' }).results.map((r) => r.path);
    }
    const chunkShape = {};
    for (const file of engine.store.catalog()) {
      const chunks = engine.store.chunksOfFile(file.path);
      chunkShape[file.path] = { chunks: chunks.length, contiguous: chunks.every((c, i) => i === 0 || c.startLine >= chunks[i - 1].startLine && c.endLine >= chunks[i - 1].endLine) && chunks.every((c) => c.startLine <= c.endLine) };
    }
    const paths = engine.store.catalog().map((f) => f.path).sort();
    engine.close();
    process.stdout.write(JSON.stringify({ first, second, paths, found, misses, chunkShape, ms: performance.now() - started }));
  `;
  const child = runScript(script, { args: [root, dbFile, JSON.stringify(markers)], unprivileged: true, timeoutMs: 90_000, maxBuffer: 64 * 1024 * 1024 });
  assert.equal(child.status, 0, `the sync child failed (signal ${child.signal}): ${child.stderr}`);
  return JSON.parse(child.stdout) as ChildReport;
}

let report: ChildReport;

test('a sync over a folder of hostile files finishes, and a second sync converges on what the folder now holds', () => {
  report = runSync();
  assert.equal(report.first.complete, true);
  assert.equal(report.second.complete, true);
  // The race victims: the deleted file and the old folder are gone, the folder's replacement is in.
  assert.ok(!report.paths.includes('zz/delete-me.txt'));
  assert.ok(!report.paths.includes('zz/folder/inside.txt'));
  assert.ok(report.paths.includes('zz/folder'), 'the file that replaced a folder is indexed by the next sync');
  assert.ok(report.ms < 60_000, `took ${report.ms} ms`);
});

test('every skipped file is counted under its reason', () => {
  const { skipped, skippedFiles } = report.first;
  const reasonOf = (p: string) => skippedFiles.find((s) => s.path === p)?.reason;
  assert.equal(reasonOf('skip/image.png'), 'binary');
  assert.equal(reasonOf('skip/nul.txt'), 'binary');
  assert.equal(reasonOf('skip/latin1.txt'), 'invalid-utf8');
  assert.equal(reasonOf('skip/minified.js'), 'too-large', 'a 50 MB minified file is over the default 1 MB cap');
  assert.equal(reasonOf('skip/outside-dir'), 'symlink-outside-root');
  assert.equal(reasonOf('skip/outside-file'), 'symlink-outside-root');
  assert.equal(reasonOf('skip/loop'), 'symlink-loop');
  assert.equal(reasonOf('unreadable.txt'), 'unreadable');
  assert.equal(reasonOf('unreadable-dir'), 'unreadable');
  for (const [reason, count] of Object.entries(skipped)) {
    assert.equal(count, skippedFiles.filter((s) => s.reason === reason).length, `count of ${reason}`);
  }
  assert.ok((skipped.binary ?? 0) >= 2 && (skipped['symlink-outside-root'] ?? 0) >= 2 && (skipped.unreadable ?? 0) >= 2);
});

test('skipped files leave nothing searchable behind', () => {
  for (const [word, hits] of Object.entries(report.misses)) {
    if (word === 'nowafilemarker') assert.deepEqual(hits, ['zz/folder'], 'the file that replaced a folder is found');
    else assert.deepEqual(hits, [], `${word} should not be searchable`);
  }
});

test('every good file is found by its planted word, on the line it was planted', () => {
  for (const m of markers) {
    const hit = report.found[m.word]?.find((r) => r.path === m.file);
    assert.ok(hit, `${m.word} in ${m.file}: got ${JSON.stringify(report.found[m.word])}`);
    assert.equal(
      hit.lineOfWord,
      m.line,
      `${m.word} in ${m.file} is on line ${m.line}, the chunk says ${hit.lineOfWord} (lines ${hit.startLine}-${hit.endLine})`,
    );
  }
});

test("the 1 MB identifier is indexed, and every file's chunks run forward through it", () => {
  assert.ok(report.paths.includes('big/identifier.txt'));
  assert.ok(report.chunkShape['enc/crlf.txt']!.chunks > 1 && report.chunkShape['enc/lonecr.txt']!.chunks > 1, 'the line-ending files span several chunks');
  for (const [file, shape] of Object.entries(report.chunkShape)) assert.ok(shape.contiguous, `${file}: chunks out of order`);
});

test('with the size cap raised, a 50 MB single-line minified file is indexed in seconds and found', async () => {
  const { Engine } = await import('../../src/core/engine.ts');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fault-minified-'));
  try {
    fs.writeFileSync(path.join(folder, 'bundle.min.js'), 'var a=1;function f(b){return b+a}'.repeat(Math.floor((50 * 1024 * 1024) / 34)) + 'minifiedmarker');
    const engine = await Engine.open({ root: folder, dbFile: path.join(folder, '.fused-search', 'index.db'), index: { maxFileBytes: 64 * 1024 * 1024 } });
    const started = performance.now();
    const summary = await engine.sync();
    const seconds = (performance.now() - started) / 1000;
    assert.equal(summary.files, 1);
    assert.ok(seconds < 30, `took ${seconds.toFixed(1)} s`);
    const [hit] = engine.searchIndexed('minifiedmarker').results;
    assert.equal(hit?.path, 'bundle.min.js');
    assert.equal(hit.startLine, 1);
    engine.close();
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
