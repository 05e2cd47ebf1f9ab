// Real folders of files for crawl tests, deleted when the test file ends.

import { after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Returns a function that creates a temporary folder holding `relPath -> content` (parents
 * included) and returns its path. Every folder it made is deleted after the calling test file;
 * a test that locks a folder unlocks it, so a non-root run can delete it too.
 */
export function treeMaker(prefix: string): (files: Record<string, string>) => string {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  });
  return (files) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    roots.push(root);
    for (const [relPath, content] of Object.entries(files)) {
      const absPath = path.join(root, relPath);
      fs.mkdirSync(path.dirname(absPath), { recursive: true });
      fs.writeFileSync(absPath, content);
    }
    return root;
  };
}
