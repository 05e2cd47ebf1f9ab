// Builds real on-disk indexes from hand-written chunks, for tests that are about searching,
// not about crawling or chunking.

import type Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Vocabulary } from '../../../src/core/search/fuzzy.ts';
import type { SearchContext } from '../../../src/core/search/pipeline.ts';
import { IndexStore } from '../../../src/core/store/store.ts';
import type { ChunkDraft } from '../../../src/core/types.ts';

const made: string[] = [];
// At exit, not in an `after` hook: one registered here, at import, would run before the test
// file's own `after` hooks that close the databases and watchers inside these folders. Retried
// because a child process a test started may still be closing its database in one.
process.once('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** A new empty folder, deleted after the calling test file. */
export function tempDir(prefix = 'fused-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export type FileSpec = Record<string, Array<Partial<ChunkDraft> & { text: string }>>;

/** One store on a temporary file, filled with the given files' chunks. */
export function storeWith(files: FileSpec, dbFile = path.join(tempDir(), 'index.db')): IndexStore {
  const store = new IndexStore(dbFile);
  addFiles(store, files);
  return store;
}

export function addFiles(store: IndexStore, files: FileSpec): void {
  for (const [relPath, chunks] of Object.entries(files)) {
    store.replaceFile(
      { path: relPath, size: 1, mtimeMs: 1, hash: relPath + JSON.stringify(chunks).length, language: relPath.endsWith('.md') ? 'markdown' : 'typescript' },
      chunks.map((chunk, i) => ({
        title: chunk.title ?? `${relPath} part ${i + 1}`,
        kind: chunk.kind ?? (relPath.endsWith('.md') ? 'prose' : 'code'),
        startLine: chunk.startLine ?? i * 10 + 1,
        endLine: chunk.endLine ?? i * 10 + 9,
        text: chunk.text,
      })),
    );
  }
}

export function contextFor(store: IndexStore): SearchContext {
  return {
    store,
    vocabulary: () => {
      const { words, docFreq } = store.vocabulary();
      return new Vocabulary(words, docFreq);
    },
  };
}

/**
 * Every posting of the Porter index (term, chunk, column, offset), in order: what it holds, which a
 * contentless table does not otherwise show, for comparing two indexes of the same files.
 */
export function porterPostings(db: Database.Database): unknown[] {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.porter_postings USING fts5vocab(main, 'fts_porter', 'instance')");
  return db.prepare('SELECT term, doc, col, offset FROM temp.porter_postings ORDER BY term, doc, col, offset').raw().all();
}
