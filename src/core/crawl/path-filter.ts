// The crawl's rules for one path at a time, for updates that do not walk: a save, a watcher event.

import path from 'node:path';
import { type IgnoreRules, IGNORE_FILE_NAMES, readIgnoreTexts, readIgnoreTextsSync, readRootRules } from './ignore-rules.ts';
import { createScope } from './scope.ts';
import type { CrawlOptions } from './walk.ts';

export interface PathFilter {
  /**
   * Whether `crawl` would report the file at `relPath` (relative to the root, `/`-separated):
   * false if it or a folder above it is ignored or excluded, or it is not included. Symlinks are
   * not resolved; a path outside the root is never accepted.
   */
  accepts(relPath: string): boolean;
}

/**
 * A snapshot of the rules: ignore files are read the first time a path below their folder is
 * asked about and kept, so create a new filter when an ignore file changes.
 */
export async function createPathFilter(root: string, options: CrawlOptions): Promise<PathFilter> {
  const absRoot = path.resolve(root);
  const scope = createScope(options.include, options.exclude);
  const rootTexts = await readIgnoreTexts(absRoot, new Set(IGNORE_FILE_NAMES));
  const rootRules = await readRootRules(absRoot, rootTexts);
  const rulesByDir = new Map<string, IgnoreRules>();

  // Only reached for folders the caller's path runs through, so the synchronous reads stay few.
  const rulesIn = (dirRel: string, parent: IgnoreRules): IgnoreRules => {
    let rules = rulesByDir.get(dirRel);
    if (rules === undefined) {
      rules = parent.extend(dirRel, readIgnoreTextsSync(path.join(absRoot, dirRel)));
      rulesByDir.set(dirRel, rules);
    }
    return rules;
  };

  return {
    accepts(relPath) {
      const segments = relPath.split('/');
      if (segments.some((s) => s === '' || s === '.' || s === '..')) return false;
      let rules = rootRules;
      let dirRel = '';
      for (const segment of segments.slice(0, -1)) {
        dirRel = dirRel === '' ? segment : `${dirRel}/${segment}`;
        if (!scope.entersDir(dirRel) || rules.ignores(dirRel, true)) return false;
        rules = rulesIn(dirRel, rules);
      }
      return scope.acceptsFile(relPath) && !rules.ignores(relPath, false);
    },
  };
}
