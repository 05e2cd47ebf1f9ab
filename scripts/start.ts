// `npm start [folder]`: opens the extension, in development mode, in a real VS Code in the browser —
// code-server on 127.0.0.1 — on `folder` (default: this repository), and prints the URL to open.
// Runs until Ctrl-C. Its settings, extensions and logs live in .cache/start/, not in $HOME.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheDir, codeServerArgs, codeServerReady, freePort, isInstalled, projectRoot } from './vscode-host/host.ts';

const folder = resolve(process.argv[2] ?? projectRoot);
for (const step of [['scripts/vscode-host/install.ts'], ['esbuild.mjs']]) {
  if (step[0]!.includes('install') && isInstalled()) continue;
  const run = spawnSync(process.execPath, step, { cwd: projectRoot, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

const port = Number(process.env.PORT) || (await freePort());
const state = join(resolve(cacheDir, '..'), 'start');
mkdirSync(join(state, 'user-data', 'User'), { recursive: true });
writeFileSync(join(state, 'config.yaml'), 'auth: none\n');
const server = spawn(
  process.execPath,
  codeServerArgs(port, { configFile: join(state, 'config.yaml'), userDataDir: join(state, 'user-data'), extensionsDir: join(state, 'extensions') }, folder),
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, XDG_DATA_HOME: join(state, 'data') } },
);

const payload = [
  ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${projectRoot}`],
  ['skipWelcome', 'true'],
];
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
for (let i = 0; i < 240; i++) {
  if (await codeServerReady(port)) break;
  await new Promise((r) => setTimeout(r, 250));
}
console.log(`\nFused Search (development) on ${folder}:\n\n  ${url}\n\nCtrl-C stops code-server.`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.kill('SIGTERM'));
server.on('exit', (code) => process.exit(code ?? 0));
