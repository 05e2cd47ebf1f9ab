// Installs code-server, the VS Code build the integration and UI suites run in, into
// .cache/code-server. It stays out of the project's own dependency tree: it weighs about 800 MB and
// its native modules must be compiled for the Node that runs it, which `npm ci` should not pay for.
// Idempotent: the marker is written only after every step succeeded, so a second run returns at once
// and an interrupted one starts over from a clean folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { CODE_SERVER_VERSION, cacheDir, codeServerDir, entryScript, expectedMarker, isInstalled, markerFile } from './host.ts';

// Children must run on this Node (24), not the system's: code-server's native modules are built by
// node-gyp under whichever `node` npm finds first on PATH.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
  // node-gyp builds each module with make -j<cores> instead of one file at a time.
  JOBS: 'max',
};

function sh(cwd: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed with ${result.status ?? result.signal}`);
  }
}

const timings: [string, number][] = [];
function step(name: string, work: () => void): void {
  console.log(`\n== ${name}`);
  const start = performance.now();
  work();
  timings.push([name, (performance.now() - start) / 1000]);
}

// node-gyp needs headers matching the running Node exactly. The `node` devDependency installs them
// (node_modules/node/node_modules/node-<platform>-<arch>/include/node), but any later `npm install`
// in the project prunes that folder, so fall back to fetching the same package into the cache.
function findNodeHeaders(): string | undefined {
  const pkg = `node-${process.platform}-${process.arch}`;
  const candidates = [
    join(dirname(process.execPath), '..', 'node_modules', pkg),
    join(dirname(process.execPath), '..'),
    join(cacheDir, 'node-headers', 'node_modules', pkg),
  ];
  return candidates.find((dir) => {
    const versionHeader = join(dir, 'include', 'node', 'node_version.h');
    if (!existsSync(versionHeader)) return false;
    const text = readFileSync(versionHeader, 'utf8');
    const [major, minor, patch] = process.versions.node.split('.');
    return (
      text.includes(`#define NODE_MAJOR_VERSION ${major}\n`) &&
      text.includes(`#define NODE_MINOR_VERSION ${minor}\n`) &&
      text.includes(`#define NODE_PATCH_VERSION ${patch}\n`)
    );
  });
}

if (isInstalled()) {
  console.log(`code-server ${CODE_SERVER_VERSION} is already installed in ${cacheDir}`);
  process.exit(0);
}

const started = performance.now();
rmSync(cacheDir, { recursive: true, force: true });
mkdirSync(cacheDir, { recursive: true });

let nodeDir = findNodeHeaders();
if (!nodeDir) {
  step(`fetch Node ${process.versions.node} headers`, () => {
    const pkg = `node-${process.platform}-${process.arch}@${process.versions.node}`;
    sh(cacheDir, 'npm', ['install', '--prefix', join(cacheDir, 'node-headers'), pkg, '--ignore-scripts', '--no-audit', '--no-fund']);
  });
  nodeDir = findNodeHeaders();
  if (!nodeDir) throw new Error(`no headers for Node ${process.versions.node} after fetching them`);
}
// The machine's npm config points nodedir at the system Node's headers; override it.
env.npm_config_nodedir = nodeDir;
console.log(`Node headers: ${nodeDir}`);

// Its postinstall re-runs npm in lib/vscode as root and fails; the steps below do that work.
step(`npm install code-server@${CODE_SERVER_VERSION}`, () =>
  sh(cacheDir, 'npm', ['install', '--prefix', cacheDir, `code-server@${CODE_SERVER_VERSION}`, '--ignore-scripts', '--no-audit', '--no-fund']),
);
const vscodeDir = join(codeServerDir, 'lib', 'vscode');
step('npm install in lib/vscode', () => sh(vscodeDir, 'npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund']));
step('native rebuild in lib/vscode', () => sh(vscodeDir, 'npm', ['rebuild']));
step('npm install in lib/vscode/extensions', () =>
  sh(join(vscodeDir, 'extensions'), 'npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund']),
);
// Even --version writes a default config (with a password) and a log folder: keep them out of $HOME.
env.XDG_CONFIG_HOME = join(cacheDir, 'xdg-config');
env.XDG_DATA_HOME = join(cacheDir, 'xdg-data');
step('check that code-server starts', () => sh(cacheDir, process.execPath, [entryScript, '--version']));

writeFileSync(markerFile, `${JSON.stringify(expectedMarker(), null, 2)}\n`);
console.log('\ncode-server install timings:');
for (const [name, seconds] of timings) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  total`);
