// What a file's path says about what the file holds. Folders are named for their content
// (`semver/functions/satisfies.js`, `commands/ci.js`) and a question often names them where the
// file's text never does: `satisfies.js` never says `semver`. A code chunk is indexed under its
// folders' names and its file's name, and the rerank reads them as part of its title.

import { baseName } from './chunk/lines.ts';

/**
 * Folders a project's layout puts files under, whatever they hold. Their names say nothing about
 * a file, and are words questions use in their own sense: titled `node_modules`, every chunk of
 * every dependency matched "when does npm ci remove node_modules", and npm's own `ci.js` left the
 * results (bench/agent-bytes.ts).
 */
const LAYOUT_FOLDERS = new Set([
  'node_modules',
  'vendor',
  'third_party',
  'src',
  'lib',
  'pkg',
  'internal',
  'cmd',
  'app',
  'main',
  'packages',
  'dist',
  'build',
  'out',
  'test',
  'tests',
  'spec',
  '__tests__',
  'doc',
  'docs',
]);

/** The folders of `relPath` that name what they hold, outermost first. */
export function topicFolders(relPath: string): string[] {
  return relPath
    .split(/[\\/]/)
    .slice(0, -1)
    .filter((folder) => folder !== '' && !LAYOUT_FOLDERS.has(folder.toLowerCase()));
}

/** `lib/commands/ci.js` → `commands ci`: the topic folders and the file's name, not its extension, which names the language. */
export function pathTitle(relPath: string): string {
  const name = baseName(relPath).replace(/(?<=.)\.[^.]*$/, '');
  return [...topicFolders(relPath), name].join(' ');
}
