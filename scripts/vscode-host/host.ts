// Where the code-server test host lives. Shared by the installer and the runner so that both agree
// on the version and on what "installed" means.
import { readFileSync } from 'node:fs';
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
