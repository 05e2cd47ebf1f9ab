// The processes that run the engine start with the settings that keep indexing a big tree within
// its memory (src/core/engine-process.ts): the extension's engine worker, forked by its client,
// and the CLI, which its launcher starts again with them. Read back from the running processes'
// /proc entries, so Linux only.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINE_NODE_FLAGS } from '../../src/core/engine-process.ts';
import { EngineClient } from '../../src/worker/client.ts';
import { tempDir } from './helpers/store.ts';
import { eventually } from './helpers/eventually.ts';

const LAUNCHER = fileURLToPath(new URL('../../bin/fused-search.cjs', import.meta.url));
const WORKER = fileURLToPath(new URL('../../src/worker/worker.ts', import.meta.url));
const onLinux = process.platform === 'linux' ? false : 'reads /proc';

const cleanup: Array<() => unknown> = [];
after(async () => {
  for (const run of cleanup.reverse()) await run();
});

/** A running process's Node flags (those before its script) and environment. */
function startedWith(pid: number): { flags: string[]; env: Map<string, string> } {
  const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, -1);
  const env = fs
    .readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] as [string, string]);
  return {
    flags: args.slice(
      0,
      args.findIndex((arg) => !arg.startsWith('--')),
    ),
    env: new Map(env),
  };
}

test(
  "the extension's engine worker runs under the engine's V8 flags and malloc settings, unless the user chose other malloc settings",
  { skip: onLinux },
  async () => {
    const client = new EngineClient(WORKER, { info() {}, warn() {}, error() {} });
    cleanup.push(() => client.stop());
    const answered = await client.request({ type: 'open', folders: [] });
    assert.ok(answered.ok, JSON.stringify(answered));
    const worker = startedWith(client.workerPid!);
    assert.deepEqual(worker.flags, [...ENGINE_NODE_FLAGS]);
    assert.equal(worker.env.get('MALLOC_ARENA_MAX'), process.env.MALLOC_ARENA_MAX ?? '2');
    assert.equal(worker.env.get('MALLOC_MMAP_THRESHOLD_'), process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072');
    assert.equal(worker.env.get('ELECTRON_RUN_AS_NODE'), '1');
  },
);

for (const [userSetting, expected] of [
  [undefined, '2'],
  ['8', '8'],
] as const) {
  test(`the CLI launcher starts the engine as the extension does${userSetting ? ', keeping the arenas the user chose' : ''}`, { skip: onLinux }, async () => {
    const folder = tempDir('fused-engine-process-');
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_MMAP_THRESHOLD_;
    if (userSetting) env.MALLOC_ARENA_MAX = userSetting;
    // The MCP server stays up while its stdin is open, long enough to be looked at.
    const launcher = spawn(process.execPath, [LAUNCHER, 'mcp', '--db', path.join(folder, 'index.db')], {
      cwd: folder,
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // Its end ends the MCP server, which shares it, and so the launcher.
    cleanup.push(() => launcher.stdin.end());
    // Until it has exec'd, a forked child still shows the launcher's own command line, and while
    // it execs, an empty one.
    const launcherCommand = fs.readFileSync(`/proc/${launcher.pid}/cmdline`, 'utf8');
    const childPid = await eventually(() => {
      const children = fs.readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8').trim();
      const pid = children ? Number(children.split(' ')[0]) : undefined;
      const command = pid === undefined ? '' : fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return command !== '' && command !== launcherCommand ? pid : undefined;
    }, 10_000);
    assert.ok(childPid, 'the launcher started the CLI in a process of its own');
    const cli = startedWith(childPid);
    assert.deepEqual(cli.flags, [...ENGINE_NODE_FLAGS], 'the launcher keeps the same flags as src/core/engine-process.ts');
    assert.equal(cli.env.get('MALLOC_ARENA_MAX'), expected);
    assert.equal(cli.env.get('MALLOC_MMAP_THRESHOLD_'), '131072', 'the launcher keeps the same malloc settings as src/core/engine-process.ts');
  });
}
