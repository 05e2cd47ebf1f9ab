// `npm start [folder]`: opens the extension, in development mode, in a real VS Code in the browser —
// code-server on 127.0.0.1 — on `folder` (default: this repository), and prints the URL to open.
// Runs until Ctrl-C. Its settings, extensions and logs live in .cache/start/, not in $HOME.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { cacheDir, entryScript, isInstalled, projectRoot } from './vscode-host/host.ts';

const folder = resolve(process.argv[2] ?? projectRoot);
for (const step of [['scripts/vscode-host/install.ts'], ['esbuild.mjs']]) {
  if (step[0]!.includes('install') && isInstalled()) continue;
  const run = spawnSync(process.execPath, step, { cwd: projectRoot, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

const port =
  Number(process.env.PORT) ||
  (await new Promise<number>((ok, fail) => {
    const server = createServer()
      .once('error', fail)
      .listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => (typeof address === 'object' && address ? ok(address.port) : fail(new Error('no port'))));
      });
  }));
const state = join(resolve(cacheDir, '..'), 'start');
mkdirSync(join(state, 'user-data', 'User'), { recursive: true });
writeFileSync(join(state, 'config.yaml'), 'auth: none\n');
const server = spawn(
  process.execPath,
  [
    entryScript,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    // Honours the development extension named in the URL's payload (the server's command line cannot).
    '--vscode-option',
    'enable-smoke-test-driver',
    '--config',
    join(state, 'config.yaml'),
    '--user-data-dir',
    join(state, 'user-data'),
    '--extensions-dir',
    join(state, 'extensions'),
    folder,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, XDG_DATA_HOME: join(state, 'data') } },
);

const payload = [
  ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${projectRoot}`],
  ['skipWelcome', 'true'],
];
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
for (let i = 0; i < 240; i++) {
  if (
    await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 250));
}
console.log(`\nFused Search (development) on ${folder}:\n\n  ${url}\n\nCtrl-C stops code-server.`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.kill('SIGTERM'));
server.on('exit', (code) => process.exit(code ?? 0));
