// What the caller asked for, on top of the ignore files: the include and exclude globs, and the
// version-control folders no search wants. Ignore files describe the project; this describes the index.

import ignore, { type Ignore } from 'ignore';
import { IGNORE_CASE } from './ignore-rules.ts';

/** Never entered, whatever their type: their content is history, not the workspace. */
const VCS_NAMES: ReadonlySet<string> = new Set(['.git', '.hg', '.svn']);

export interface Scope {
  /** False for a folder the walk must not enter; `relPath` is relative to the root. */
  entersDir(relPath: string): boolean;
  acceptsFile(relPath: string): boolean;
}

/**
 * Each list is read as a gitignore file at the root: `!` negates an earlier line, `/build` is
 * anchored, `out/` means folders only. An excluded folder is not entered. `include` is tested on files
 * only: a folder no include glob names may still hold files that one does.
 */
export function createScope(include: readonly string[], exclude: readonly string[]): Scope {
  const excluded = globList(exclude);
  const included = globList(include);
  return {
    entersDir: (relPath) => !VCS_NAMES.has(baseName(relPath)) && !(excluded?.ignores(`${relPath}/`) ?? false),
    acceptsFile: (relPath) => !VCS_NAMES.has(baseName(relPath)) && !(excluded?.ignores(relPath) ?? false) && (included?.ignores(relPath) ?? true),
  };
}

function globList(globs: readonly string[]): Ignore | undefined {
  return globs.length === 0 ? undefined : ignore({ ignoreCase: IGNORE_CASE }).add(globs);
}

function baseName(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1);
}
