// A module's source run in a child Node process, for what a test cannot do in its own: act as a
// user without rights (root reads anything, so a test of an unreadable file runs as `nobody`), or
// call code that may stall, where a timeout ends the child and fails the test instead of stalling
// the suite.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

/** The uid and gid of `nobody` on Debian and most Linux systems. */
export const NOBODY = 65534;
export const runningAsRoot = process.getuid?.() === 0;

export interface ChildScriptOptions {
  /** `process.argv[1]` onwards, in the script. */
  args?: string[];
  /** Run as `nobody` when this process is root. */
  unprivileged?: boolean;
  timeoutMs?: number;
  maxBuffer?: number;
}

/** Runs `source`, an ES module's text, and returns what the child printed; `error` is set when the timeout ended it. */
export function runScript(source: string, { args = [], unprivileged = false, timeoutMs, maxBuffer }: ChildScriptOptions = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--input-type=module', '--eval', source, ...args], {
    encoding: 'utf8',
    ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
    ...(maxBuffer !== undefined ? { maxBuffer } : {}),
    ...(unprivileged && runningAsRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
}

/** A module under `src/` as a script's `import` names it. */
export function srcModule(relPath: string): string {
  return JSON.stringify(new URL(`../../../src/${relPath}`, import.meta.url).href);
}

export type CrawlEvent = { type: 'file'; relPath: string } | { type: 'skip'; relPath: string; reason: string };

/** What a crawl of `root` reports to a user without rights, or undefined when the child cannot become one. */
export function crawlUnprivileged(root: string): CrawlEvent[] | undefined {
  const source = `import { crawl } from ${srcModule('core/crawl/index.ts')};
    const out = [];
    for await (const e of crawl(process.argv[1], { include: [], exclude: [], maxFileBytes: 1e6 }))
      out.push(e.type === 'file' ? { type: 'file', relPath: e.file.relPath } : e);
    process.stdout.write(JSON.stringify(out));`;
  const child = runScript(source, { args: [root], unprivileged: true });
  return child.status === 0 ? (JSON.parse(child.stdout) as CrawlEvent[]) : undefined;
}
