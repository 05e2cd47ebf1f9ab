// Where the code-server test host lives and how it is started. Shared by the installer, the test
// runner and `npm start`, so that they agree on the version, on what "installed" means and on the
// command line.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const CODE_SERVER_VERSION = '4.139.1';

export const projectRoot = resolve(import.meta.dirname, '../..');
export const cacheDir = join(projectRoot, '.cache', 'code-server');
export const codeServerDir = join(cacheDir, 'node_modules', 'code-server');
export const entryScript = join(codeServerDir, 'out', 'node', 'entry.js');

// Written last by the installer. Native modules are built for one Node ABI, so the marker records it
// and a change of Node version triggers a fresh install.
export const markerFile = join(cacheDir, 'installed.json');

export interface InstallMarker {
  codeServer: string;
  nodeAbi: string;
}

export function expectedMarker(): InstallMarker {
  return { codeServer: CODE_SERVER_VERSION, nodeAbi: process.versions.modules };
}

export function isInstalled(): boolean {
  try {
    return JSON.stringify(JSON.parse(readFileSync(markerFile, 'utf8'))) === JSON.stringify(expectedMarker());
  } catch {
    return false;
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  const address = server.address();
  await new Promise((ok) => server.close(ok));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

export interface CodeServerState {
  /** Written with `auth: none`: without --config code-server writes a config with a password into ~/.config/code-server. */
  configFile: string;
  userDataDir: string;
  extensionsDir: string;
}

/** code-server's arguments: on 127.0.0.1 without a password or calls home, `extra` flags, and `folder` opened. */
export function codeServerArgs(port: number, state: CodeServerState, folder: string, extra: string[] = []): string[] {
  return [
    entryScript,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...extra,
    // Honours the development extension named in the URL's payload (the server's command line cannot).
    '--vscode-option',
    'enable-smoke-test-driver',
    '--config',
    state.configFile,
    '--user-data-dir',
    state.userDataDir,
    '--extensions-dir',
    state.extensionsDir,
    folder,
  ];
}

/** Whether code-server answers its health check on `port`. */
export function codeServerReady(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
}
