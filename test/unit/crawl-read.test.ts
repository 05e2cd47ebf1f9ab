// Reading one file: what counts as text, how it is decoded, and which reason a failure gets.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTextFile } from '../../src/core/crawl/index.ts';
import { runScript, srcModule } from './helpers/child-script.ts';

const MAX = 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawl-read-'));
let counter = 0;
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function fileWith(bytes: Uint8Array | string): string {
  const absPath = path.join(dir, `f${counter++}`);
  fs.writeFileSync(absPath, bytes);
  return absPath;
}

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

test('UTF-8 text comes back as is, hashed over its raw bytes', async () => {
  const bytes = Buffer.from('const café = "☕";\n');
  assert.deepEqual(await readTextFile(fileWith(bytes), MAX), { ok: true, text: 'const café = "☕";\n', hash: sha1(bytes) });
});

test('an empty file is empty text', async () => {
  assert.deepEqual(await readTextFile(fileWith(''), MAX), { ok: true, text: '', hash: sha1(new Uint8Array()) });
});

test('a UTF-8 BOM is stripped from the text but still counts in the hash', async () => {
  const bytes = Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('# Title\n')]);
  const read = await readTextFile(fileWith(bytes), MAX);
  assert.deepEqual(read, { ok: true, text: '# Title\n', hash: sha1(bytes) });
});

test('UTF-16 with a BOM, little or big endian, is decoded to text rather than called binary', async () => {
  const text = 'Grüße, 世界\r\nline two\n';
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const be = Buffer.from(le);
  be.swap16();
  for (const bytes of [le, be]) {
    assert.deepEqual(await readTextFile(fileWith(bytes), MAX), { ok: true, text, hash: sha1(bytes) });
  }
  assert.notEqual(sha1(le), sha1(be), 'a change of encoding alone is a change');
});

test('a NUL byte in the first 8 KB means binary; one later on does not', async () => {
  assert.deepEqual(await readTextFile(fileWith(Buffer.from('PK\x03\x04\x00\x00rest')), MAX), { ok: false, reason: 'binary' });
  assert.deepEqual(await readTextFile(fileWith('a'.repeat(8191) + '\0'), MAX), { ok: false, reason: 'binary' });
  const late = await readTextFile(fileWith('a'.repeat(8192) + '\0'), MAX);
  assert.equal(late.ok, true);
});

test('bytes that are not UTF-8 are invalid-utf8, never text full of replacement characters', async () => {
  for (const bytes of [
    [0x63, 0x61, 0x66, 0xe9],
    [0xc3, 0x28],
    [0xed, 0xa0, 0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
  ]) {
    assert.deepEqual(await readTextFile(fileWith(Buffer.from(bytes)), MAX), { ok: false, reason: 'invalid-utf8' });
  }
});

test('a UTF-16 BOM followed by an odd number of bytes is binary', async () => {
  assert.deepEqual(await readTextFile(fileWith(Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x42])), MAX), { ok: false, reason: 'binary' });
});

test('a file above the limit is too-large; one at the limit is read', async () => {
  assert.deepEqual(await readTextFile(fileWith('x'.repeat(11)), 10), { ok: false, reason: 'too-large' });
  assert.equal((await readTextFile(fileWith('x'.repeat(10)), 10)).ok, true);
});

test('a missing file has vanished; a folder or a path through a file is not readable text', async () => {
  assert.deepEqual(await readTextFile(path.join(dir, 'missing'), MAX), { ok: false, reason: 'vanished' });
  assert.deepEqual(await readTextFile(path.join(fileWith('x'), 'child'), MAX), { ok: false, reason: 'vanished' });
  assert.deepEqual(await readTextFile(dir, MAX), { ok: false, reason: 'unreadable' });
});

const fifoTest = { skip: process.platform === 'win32' && 'no mkfifo', timeout: 5000 };
test('a FIFO found where a file was listed is unreadable at once instead of waiting for a writer', fifoTest, async () => {
  const fifo = path.join(dir, 'pipe');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  assert.deepEqual(await readTextFile(fifo, MAX), { ok: false, reason: 'unreadable' });
});

test('a file without read permission is unreadable', async (t) => {
  const absPath = fileWith('secret');
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(absPath, 0o000);
  // Root reads anything, so the read runs as `nobody` in a child process when this one is root.
  const script = `import { readTextFile } from ${srcModule('core/crawl/index.ts')};
    process.stdout.write(JSON.stringify(await readTextFile(process.argv[1], 100)));`;
  const child = runScript(script, { args: [absPath], unprivileged: true });
  if (child.status !== 0) return t.skip(`cannot run as an unprivileged user: ${child.stderr}`);
  assert.deepEqual(JSON.parse(child.stdout), { ok: false, reason: 'unreadable' });
});
