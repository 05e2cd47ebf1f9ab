// The peers as the benches run them: context-mode's ContentStore (loaded from its installed build,
// never copied) and the plain FTS5 Porter floor.

import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The part of context-mode's ContentStore the benches call (its build ships .d.ts; this is the subset). */
export interface ContentStoreLike {
  index(options: { content?: string; path?: string; source?: string }): { totalChunks: number };
  searchWithFallback(query: string, limit?: number): Array<{ source: string; title: string }>;
  close(): void;
}

/** context-mode does not export its store module; it is loaded by file path from node_modules. */
export async function openContentStore(dbFile: string): Promise<ContentStoreLike> {
  const url = pathToFileURL(path.resolve('node_modules/context-mode/build/store.js')).href;
  const module = (await import(url)) as { ContentStore: new (dbPath: string) => ContentStoreLike };
  return new module.ContentStore(dbFile);
}

export function contextModeVersion(): string {
  return (JSON.parse(fs.readFileSync(path.resolve('node_modules/context-mode/package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The floor: one Porter FTS5 table, BM25, every distinct query word quoted and OR-ed, no stopwords,
 * no tuning — what the eval README calls plain FTS5. A side table maps each source to its rowids so
 * a re-index deletes by rowid rather than scanning the FTS table.
 */
export class Fts5Floor {
  readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly query: Database.Statement;

  constructor(dbFile: string) {
    this.db = new Database(dbFile);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS porter USING fts5 (source UNINDEXED, title, text, tokenize = 'porter unicode61');
                  CREATE TABLE IF NOT EXISTS sources (source TEXT PRIMARY KEY, lo INTEGER, hi INTEGER);`);
    this.insert = this.db.prepare('INSERT INTO porter (source, title, text) VALUES (?, ?, ?)');
    this.query = this.db.prepare('SELECT source, title FROM porter WHERE porter MATCH ? ORDER BY rank LIMIT ?');
  }

  /** Replaces one source's rows with `pieces`. */
  replace(source: string, pieces: Array<{ title: string; text: string }>): void {
    const old = this.db.prepare('SELECT lo, hi FROM sources WHERE source = ?').get(source) as { lo: number; hi: number } | undefined;
    if (old) this.db.prepare('DELETE FROM porter WHERE rowid BETWEEN ? AND ?').run(old.lo, old.hi);
    let lo = 0;
    let hi = -1;
    for (const piece of pieces) {
      const rowid = Number(this.insert.run(source, piece.title, piece.text).lastInsertRowid);
      if (lo === 0) lo = rowid;
      hi = rowid;
    }
    this.db.prepare('INSERT OR REPLACE INTO sources (source, lo, hi) VALUES (?, ?, ?)').run(source, lo, hi);
  }

  search(text: string, limit: number): Array<{ source: string; title: string }> {
    const match = Fts5Floor.matchExpression(text);
    if (!match) return [];
    return this.query.all(match, limit) as Array<{ source: string; title: string }>;
  }

  static matchExpression(text: string): string {
    const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
    return words.map((w) => `"${w}"`).join(' OR ');
  }

  close(): void {
    this.db.close();
  }
}

/** The floor's file chunking: fixed 50-line pieces, titled by path. */
export function fiftyLinePieces(relPath: string, text: string): Array<{ title: string; text: string }> {
  const lines = text.split('\n');
  const pieces: Array<{ title: string; text: string }> = [];
  for (let at = 0; at < lines.length; at += 50) pieces.push({ title: relPath, text: lines.slice(at, at + 50).join('\n') });
  return pieces;
}
