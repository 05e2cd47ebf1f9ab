// `fused-search locate` in a spawned process, as a person at a terminal or a script uses it:
// the text as arguments, from a file, or piped in.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LocateAnswer } from '../../src/core/locate.ts';
import { writeLocateRepo } from './helpers/locate-repo.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/locate/', import.meta.url));

let root: string;

function run(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

before(() => {
  root = writeLocateRepo();
  assert.equal(run(['index', '.']).status, 0);
});

test('a piped Go panic prints the ranked files with their reasons and chunks', () => {
  const { status, stdout } = run(['locate', '--limit', '2'], spawnSync('cat', [`${FIXTURES}go.txt`], { encoding: 'utf8' }).stdout);
  assert.equal(status, 0);
  const lines = stdout.split('\n');
  assert.match(lines[0]!, /^From 2 frames, .* \(\d+ ms\):$/);
  // `path:line`, which a terminal opens at the line the frame names.
  assert.match(lines[2]!, /^1\. worker\/queue\/consumer\.go:10 {2}\([\d.]+\)$/);
  assert.equal(lines[3], '     10: panic("queue closed while polling")');
  assert.equal(lines[4], '     stack frame worker/queue/consumer.go:10 in Consumer.Poll');
  assert.ok(lines.includes('     worker/queue/consumer.go:8-13  Consumer > Poll'));
  assert.ok(lines.some((line) => /^2\. worker\/main\.go/.test(line)));
  assert.ok(!lines.some((line) => /^3\. /.test(line)), '--limit 2');
});

test('--file and --json give the answer as data', () => {
  const { status, stdout } = run(['locate', '--file', `${FIXTURES}java.txt`, '--json']);
  assert.equal(status, 0);
  const answer = JSON.parse(stdout) as LocateAnswer;
  assert.equal(answer.files[0]!.path, 'service/src/main/java/com/acme/orders/OrderService.java');
  assert.ok(answer.clues.some((clue) => clue.kind === 'error' && clue.text === 'NullPointerException'));
});

test('text given as arguments is located as well', () => {
  const { status, stdout } = run(['locate', 'PaymentGateway.refund', 'ignores', 'the', 'response']);
  assert.equal(status, 0);
  assert.match(stdout, /^1\. app\/payments\/gateway\.py {2}/m, 'no frame, no line');
  assert.match(stdout, /defines PaymentGateway\.refund/);
});

test('bad input gets one line on stderr and status 2', () => {
  assert.deepEqual(run(['locate', '--file', 'missing.txt']), { status: 2, stdout: '', stderr: 'fused-search: cannot read missing.txt: no such file\n' });
  assert.deepEqual(run(['locate', 'x', '--file', `${FIXTURES}go.txt`]), {
    status: 2,
    stdout: '',
    stderr: 'fused-search: locate takes the text or --file, not both\n',
  });
  assert.deepEqual(run(['locate'], ''), { status: 2, stdout: '', stderr: 'fused-search: the text must be a non-empty string\n' });
  assert.deepEqual(run(['locate', '--limit', '0', 'x']), { status: 2, stdout: '', stderr: 'fused-search: --limit must be a whole number from 1 to 50\n' });
});
