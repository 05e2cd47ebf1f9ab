// Ignore files (.gitignore, .fusedsearchignore, .git/info/exclude) as one matcher per folder.
//
// git decides a path by looking at the ignore file of the path's own folder first, then its
// parent's, and so on up to the root, then .git/info/exclude; inside one file the last matching
// pattern wins. One `ignore` instance per ignore file, asked in that order, gets one case wrong:
// the library also checks a path's parent folders against the same file, so a root `build/` would
// still hide `docs/build/x` after `docs/.gitignore` re-included the folder with `!build/`. Instead
// each folder's patterns are rewritten relative to the root and appended to its parent's list, and
// "last match wins" over that one list gives git's answer, parent checks included.

import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Read in this order in every folder, so a `.fusedsearchignore` overrides the `.gitignore` beside it. */
export const IGNORE_FILE_NAMES: readonly string[] = ['.gitignore', '.fusedsearchignore'];

/** Relative to the root, lowest precedence of all, as in git. */
const INFO_EXCLUDE = '.git/info/exclude';

/**
 * Whether a changed path (relative to the root, `/`-separated) is an ignore file, whose change
 * can add or drop other files: every watcher and save handler asks this one question.
 */
export function isIgnoreFile(relPath: string): boolean {
  return relPath === INFO_EXCLUDE || IGNORE_FILE_NAMES.includes(path.posix.basename(relPath));
}

/**
 * Whether a watcher may drop a change at once: git's own bookkeeping under `.git/` changes on
 * every command and is never indexed, but `.git/info/exclude` holds ignore rules.
 */
export function isGitInternal(relPath: string): boolean {
  return (relPath === '.git' || relPath.startsWith('.git/')) && relPath !== INFO_EXCLUDE;
}

/** git's default `core.ignorecase`: on where the usual file system folds case. */
export const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

export interface IgnoreRules {
  /** `relPath` is relative to the root, `/`-separated; `isDir` lets `out/` match folders only. */
  ignores(relPath: string, isDir: boolean): boolean;
  /** The rules in effect inside the subfolder `dirRel`, given the texts of its own ignore files. */
  extend(dirRel: string, texts: readonly string[]): IgnoreRules;
}

class RuleList implements IgnoreRules {
  readonly #matcher: Ignore | undefined;

  constructor(matcher: Ignore | undefined) {
    this.#matcher = matcher;
  }

  ignores(relPath: string, isDir: boolean): boolean {
    return this.#matcher !== undefined && this.#matcher.ignores(isDir ? `${relPath}/` : relPath);
  }

  extend(dirRel: string, texts: readonly string[]): IgnoreRules {
    const patterns = texts.flatMap((text) => rebasePatterns(text, dirRel));
    if (patterns.length === 0) return this;
    // Shares the parent's compiled rules: a folder's .gitignore costs its own lines, not the whole chain's.
    const matcher = ignore({ ignoreCase: IGNORE_CASE });
    if (this.#matcher !== undefined) matcher.add(this.#matcher);
    return new RuleList(matcher.add(patterns));
  }
}

/**
 * Rewrites the patterns of an ignore file in `dirRel` so they mean the same thing relative to the
 * root: a pattern with a slash before its end is anchored to its folder, any other pattern matches
 * at every depth below it. Root patterns come back unchanged.
 */
function rebasePatterns(text: string, dirRel: string): string[] {
  const patterns: string[] = [];
  const prefix = dirRel === '' ? '' : `/${escapeGlob(dirRel)}/`;
  for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const trimmed = trimTrailingSpaces(line);
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (prefix === '') {
      patterns.push(trimmed);
      continue;
    }
    const negative = trimmed.startsWith('!');
    const body = negative ? trimmed.slice(1) : trimmed;
    const withoutTrailingSlash = body.endsWith('/') ? body.slice(0, -1) : body;
    if (withoutTrailingSlash === '') continue;
    const rebased = withoutTrailingSlash.includes('/') ? prefix + body.replace(/^\//, '') : `${prefix}**/${body}`;
    patterns.push(negative ? `!${rebased}` : rebased);
  }
  return patterns;
}

/** git keeps a trailing space only when a backslash escapes it. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}

/** A folder called `[gen]` or `*` must be matched literally once it becomes part of a pattern. */
function escapeGlob(relPath: string): string {
  return relPath.replace(/[\\*?[\]]/g, '\\$&');
}

/** The rules in effect in the root folder itself, given the texts of its own ignore files. */
export async function readRootRules(root: string, rootTexts: readonly string[]): Promise<IgnoreRules> {
  const infoExclude = await readOrEmpty(path.join(root, INFO_EXCLUDE));
  return new RuleList(undefined).extend('', [infoExclude, ...rootTexts]);
}

/** Reads the ignore files among `names` (a folder listing), in order; an unreadable one counts as empty. */
export async function readIgnoreTexts(absDir: string, names: ReadonlySet<string>): Promise<string[]> {
  const present = IGNORE_FILE_NAMES.filter((name) => names.has(name));
  return Promise.all(present.map((name) => readOrEmpty(path.join(absDir, name))));
}

/** For callers that must answer synchronously, such as a path filter asked one path at a time. */
export function readIgnoreTextsSync(absDir: string): string[] {
  return IGNORE_FILE_NAMES.map((name) => readOrEmptySync(path.join(absDir, name)));
}

async function readOrEmpty(absPath: string): Promise<string> {
  try {
    return await fs.promises.readFile(absPath, 'utf8');
  } catch {
    return '';
  }
}

function readOrEmptySync(absPath: string): string {
  try {
    return fs.readFileSync(absPath, 'utf8');
  } catch {
    return '';
  }
}
