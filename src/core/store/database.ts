// Opens the index database: pragmas, schema, and the promise that an unreadable or unknown
// database never blocks the user — it is moved aside and rebuilt, and the caller is told.

import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../error-message.ts';

export type Db = Database.Database;

/**
 * Bump when the schema changes. There are no migrations yet: an index is cheap to rebuild and
 * always derivable from the files, so any other version is moved aside and rebuilt.
 */
export const SCHEMA_VERSION = 6;

const PAGE_BYTES = 16_384;

/**
 * What was added to the schema after its version shipped, made at every writable open (a no-op
 * once there) rather than by a version bump, which would rebuild every index:
 * - `vocabulary_buckets`, the stored fuzzy vocabulary's targets by word length, which a process
 *   reads only as its typos reach them (search/fuzzy.ts);
 * - `files_by_indexed_at`, so that "how many files changed since the vocabulary was built" reads
 *   a range of an index, not the whole catalog (9 MB on the Linux tree, 44 ms in a fresh process).
 * A connection that cannot write does without them: it builds its vocabulary, and counts by a scan.
 */
const ADDITIONS = `
CREATE TABLE IF NOT EXISTS vocabulary_buckets (length INTEGER PRIMARY KEY, built_at INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS files_by_indexed_at ON files (indexed_at);
`;

// The text of a chunk is stored once, in `chunks`. The Porter table is contentless: the store
// writes each chunk's title and text to it, with `humps`, the camelCase pieces of the chunk's
// identifiers, which no FTS5 tokenizer splits, so `retry policy` finds `retryPolicy`. The humps
// are computed again from the text to delete a chunk rather than stored (63 MB on the Linux tree).
// Substring matching (`alloc` inside `kmalloc`) takes two small tables instead of a trigram index
// over every chunk: `word_trigrams` indexes the trigrams of each distinct word of the index once
// (`seen_words`), which turns a substring into the words that hold it, and `fts_chunk_words` lists
// each chunk's title and distinct words as whole words, which turns those words into chunks; its
// `chunk_word_instances` view and `chunk_lengths` let the search score a substring as the
// trigram index did (search/substrings.ts). That index was 47% of the Linux tree's index (1.7× its
// text): it stored every word's trigrams again in every chunk that used the word. A distinct word
// has one place per column, so `fts_chunk_words` keeps columns, not positions (a third smaller);
// FTS5's bm25() cannot rank such a table, and the search scores it itself. The lengths are a
// narrow table of their own because a query reads them for thousands of chunks, and a `chunks`
// row fills a quarter of a page.
// `words` is a contentless word-level table whose fts5vocab view is the vocabulary the fuzzy
// retry corrects against; nothing ranks it, so it keeps no column sizes.
// Each FTS5 table over chunks buffers 8 MB of new postings instead of 1 MB before writing a
// segment: fewer, larger segments roughly halve the insert cost of a bulk index. And it merges
// eight segments of a level into one instead of four (`automerge`), so that a posting is rewritten
// by fewer merges while a first index grows; the keeper merges what is left once it is idle.
// Sixteen cost 115 MB more memory at the peak of the Linux tree's first index.
// The contentless tables are kept in step by the store, which recomputes a chunk's word lists
// from its stored text to delete it (cheaper on insert than contentless_delete's tombstones).
// The vocabulary snapshot keeps the fuzzy vocabulary of a big index, built once, for the next process:
// its header here, each word length's correction targets in `vocabulary_buckets` (see ADDITIONS).
const SCHEMA = `
CREATE TABLE vocabulary_snapshot (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  built_at INTEGER NOT NULL,
  files INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('chunkCount', '0');
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  hash TEXT NOT NULL,
  language TEXT NOT NULL,
  indexed_at INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL
);
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  ord INTEGER NOT NULL,
  title TEXT NOT NULL,
  kind TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE TABLE chunk_lengths (id INTEGER PRIMARY KEY, trigrams INTEGER NOT NULL);
CREATE INDEX chunks_by_file ON chunks (file_id, ord);
CREATE VIRTUAL TABLE fts_porter USING fts5 (
  title, text, humps, content = '',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE fts_chunk_words USING fts5 (
  title, words, content = '', detail = column,
  tokenize = "unicode61 remove_diacritics 0 categories 'L* M* N* Co' tokenchars '_'"
);
CREATE TABLE seen_words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE word_trigrams USING fts5 (
  word, content = 'seen_words', content_rowid = 'id', columnsize = 0, tokenize = 'trigram'
);
CREATE VIRTUAL TABLE chunk_words_vocab USING fts5vocab (fts_chunk_words, 'row');
CREATE VIRTUAL TABLE chunk_word_instances USING fts5vocab (fts_chunk_words, 'instance');
CREATE VIRTUAL TABLE fts_words USING fts5 (
  words, content = '', detail = none, columnsize = 0, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE words_vocab USING fts5vocab (fts_words, 'row');
INSERT INTO fts_porter (fts_porter, rank) VALUES ('hashsize', 8388608);
INSERT INTO fts_chunk_words (fts_chunk_words, rank) VALUES ('hashsize', 8388608);
INSERT INTO fts_words (fts_words, rank) VALUES ('hashsize', 8388608);
INSERT INTO fts_porter (fts_porter, rank) VALUES ('automerge', 8);
INSERT INTO fts_chunk_words (fts_chunk_words, rank) VALUES ('automerge', 8);
INSERT INTO fts_words (fts_words, rank) VALUES ('automerge', 8);
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM chunk_lengths WHERE id = old.id;
END;
CREATE TRIGGER seen_words_after_insert AFTER INSERT ON seen_words BEGIN
  INSERT INTO word_trigrams (rowid, word) VALUES (new.id, new.word);
END;
CREATE TRIGGER seen_words_after_delete AFTER DELETE ON seen_words BEGIN
  INSERT INTO word_trigrams (word_trigrams, rowid, word) VALUES ('delete', old.id, old.word);
END;
`;

export interface OpenedDatabase {
  db: Db;
  /** Set when an existing file could not be used and was moved aside; says why and where to. */
  rebuiltBecause?: string;
  /** Where a sound index of another schema version was moved: what is costly to rebuild may be read back from it. */
  previousVersion?: string;
}

/**
 * Opens (creating if needed) the database at `file`. A corrupt file, a file that is not SQLite,
 * or one written by another schema version is renamed to `<file>.broken-<time>` with its WAL and
 * SHM files, and a fresh database takes its place. A database locked by another process past the
 * busy timeout is not broken: that error is thrown, and the file left alone. So is any error when
 * the file is `existing`, a second connection to an index this process already opened, which is
 * never created either: an index moved away meanwhile must not be replaced by an empty one.
 */
export function openDatabase(file: string, options: { readonly?: boolean; existing?: boolean } = {}): OpenedDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    return { db: openChecked(file, options.readonly ?? false, options.existing ?? false) };
  } catch (error) {
    if (file === ':memory:' || options.readonly || options.existing || isBusy(error)) throw error;
    const problem = error instanceof UnusableDatabase ? error.message : `it could not be read (${errorMessage(error)})`;
    const aside = moveAside(file);
    return {
      db: openChecked(file, false, false),
      rebuiltBecause: `The index at ${file} was moved to ${aside} and is being rebuilt: ${problem}.`,
      ...(error instanceof UnusableDatabase ? { previousVersion: aside } : {}),
    };
  }
}

class UnusableDatabase extends Error {}

function openChecked(file: string, readonly: boolean, existing: boolean): Db {
  const db = new Database(file, { readonly, fileMustExist: readonly || existing });
  try {
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      // Only possible on a brand-new file, before WAL mode writes its header. Incremental vacuum
      // lets IndexStore.tidyAfterSync() shrink the file after a bulk load. 16 KB pages hold a
      // chunk of up to 16 KB whole: with 4 KB pages every chunk near the 4 KB cap spilled into an
      // overflow page it mostly left empty (on the kernel's fs/: 115.3 MB, 107.5 MB with 16 KB).
      if (db.pragma('page_count', { simple: true }) === 0) {
        db.pragma(`page_size = ${PAGE_BYTES}`);
        db.pragma('auto_vacuum = INCREMENTAL');
      }
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('cache_size = -32768');
    db.pragma('temp_store = MEMORY');
    const version = db.pragma('user_version', { simple: true }) as number;
    const hasTables = (db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n > 0;
    if (version === 0 && !hasTables && !readonly && !existing) {
      db.transaction(() => {
        db.exec(SCHEMA);
        db.exec(ADDITIONS);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      })();
    } else if (version !== SCHEMA_VERSION) {
      throw new UnusableDatabase(`its schema version is ${version}, this build reads version ${SCHEMA_VERSION}`);
    } else {
      // Touch every table once so a damaged file fails here, not in the middle of a query.
      db.prepare('SELECT count(*) FROM files').get();
      db.prepare("SELECT count(*) FROM fts_porter WHERE fts_porter MATCH 'x'").get();
      if (!readonly) addMissing(db);
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function addMissing(db: Db): void {
  try {
    db.exec(ADDITIONS);
  } catch (error) {
    // Another process is writing: a later open adds them, and until then this one does without.
    if (!isBusy(error)) throw error;
  }
}

function moveAside(file: string): string {
  const aside = `${file}.broken-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix);
  }
  return aside;
}

/**
 * SQLITE_BUSY or SQLITE_LOCKED, or one of their extended codes: another connection held a lock
 * past the busy timeout. The database is sound and the same work may succeed later, so callers
 * retry or answer from what they can read; it is never a reason to move a database aside.
 */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** SQLITE_FULL: the disk is full, or the database reached its max_page_count. */
export function isDiskFull(error: unknown): boolean {
  return sqliteCode(error) === 'SQLITE_FULL';
}

function sqliteCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error ? String(error.code) : undefined;
}
