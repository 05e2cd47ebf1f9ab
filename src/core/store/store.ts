// The only module that speaks SQL. It keeps the file catalog, each file's chunks, the FTS5
// indexes and the index's word list in step, and answers the small set of questions the search
// pipeline asks.

import type { ChunkDraft, ChunkKind } from '../types.ts';
import type { Statement } from 'better-sqlite3';
import { isBusy, openDatabase, type Db } from './database.ts';
import { chunkWords, indexedTitle, vocabularyWords, type ChunkWords } from './words.ts';

export interface FileRecord {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
  language: string;
}

/** One file's new content for `replaceFiles`. */
export interface FileChunks {
  record: FileRecord;
  chunks: readonly ChunkDraft[];
  /** The chunks' `chunkWords`, in order, when the caller derived them already (off this thread). */
  words?: readonly ChunkWords[];
}

/** A file whose content hash is unchanged but whose size or mtime moved (a checkout rewrote it as it was). */
export interface TouchedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** One transaction of a sync (`writeBatch`): files whose content changed, and files only touched. */
export interface WriteBatch {
  files: readonly FileChunks[];
  touched: readonly TouchedFile[];
}

/**
 * What a batch written on another connection to this database changed in the counts a store
 * keeps for its own writes (`absorb`): the bulk writer's thread has a connection of its own.
 */
export interface WriteTally {
  chunks: number;
  chunksDeleted: number;
  chunksRewritten: number;
}

export interface CatalogEntry extends FileRecord {
  id: number;
  indexedAt: number;
  chunkCount: number;
}

export interface StoredChunk {
  id: number;
  path: string;
  language: string;
  ord: number;
  title: string;
  kind: ChunkKind;
  startLine: number;
  endLine: number;
  text: string;
}

export interface ListRow {
  id: number;
  bm25: number;
}

export type FtsTable = 'porter' | 'trigram';

export interface VocabularySnapshot {
  /** When the vocabulary was read from the index (ms since the epoch), and how many files it held. */
  builtAt: number;
  files: number;
  /** What Vocabulary.toStored made: the header here, each length's targets in a row of its own. */
  header: Uint8Array;
}

const MATCH_COUNTS_KEPT = 2_000;

/**
 * Words no chunk holds any more stay in `seen_words`, matching nothing, until the chunks deleted
 * since they were last forgotten reach this share of the index: finding them reads every word's
 * postings, seconds on a big tree.
 */
const FORGET_UNUSED_WORDS_AT = 0.1;
/**
 * Words compared with the index's terms per step of forgetting the unused ones: tens of
 * milliseconds on the Linux tree, where one statement over its 4 M words held the thread for 7 s.
 */
const FORGET_STEP_WORDS = 5_000;

/** Chunks written and deleted, as a share of the index, that begin a merge pass (see `tidyAfterSync`). */
const MERGE_AFTER_SHARE = 0.1;
/**
 * An index of at most this many chunks is merged whole once a table holds more than MAX_SEGMENTS
 * segments (see `beginMergeIfFragmented`): on npm's tree (15,000 chunks) a whole pass takes about
 * 0.2 s. Above it, a pass rewrites too much to follow every few saves.
 */
const FRAGMENTED_MERGE_MAX_CHUNKS = 50_000;
const MAX_SEGMENTS = 4;

/** Every FTS5 table, in the order a merge pass (`beginMerge`) takes them. */
const FTS5_TABLES = ['fts_porter', 'fts_chunk_words', 'word_trigrams', 'fts_words'] as const;
type Fts5Table = (typeof FTS5_TABLES)[number];

/** A merge step's work: FTS5 pages (4 KB) merged, then database pages (16 KB) given back to the disk. */
const MERGE_STEP_PAGES = 256;
const VACUUM_STEP_PAGES = 64;

/** Words read per page of the vocabulary (`vocabularyPage`): 20–30 ms on the Linux tree. */
export const VOCABULARY_PAGE_WORDS = 10_000;

/** Chunk rows written per INSERT statement (see `replaceFiles`), and the parameters of one. */
const CHUNK_ROWS_PER_INSERT = 64;
const CHUNK_COLUMNS = 8;
const CHUNK_ROW = `(${Array.from({ length: CHUNK_COLUMNS }, () => '?').join(', ')})`;

/** BM25 weights after the title's: text, then (Porter only) the identifier humps. */
const FTS_TABLES: Record<FtsTable, { name: string; weights: string }> = {
  porter: { name: 'fts_porter', weights: '1.0, 1.0' },
  trigram: { name: 'fts_chunk_words', weights: '1.0' },
};

export interface IndexStats {
  files: number;
  chunks: number;
  /** UTF-8 bytes of chunk text held by the index. */
  textBytes: number;
  /** Size of the database file and its WAL, in bytes. */
  diskBytes: number;
  /** Milliseconds since the epoch of the newest file update, or null for an empty index. */
  lastIndexedAt: number | null;
  languages: Record<string, number>;
  /** Files kept out because they hold credentials (`secret`), as the last sync and later updates found them. */
  secretFiles: { count: number; examples: string[] };
}

/**
 * The meta key holding how many chunks the index holds, moved by every write in its transaction:
 * counting them at open read a 21 MB index on the Linux tree, 70–90 ms before a first query.
 */
const CHUNK_COUNT_META = 'chunkCount';
/** The meta key holding the sum of every chunk's trigram count (see `averageTrigramCount`). */
const TRIGRAM_TOTAL_META = 'trigramTotal';
/** The meta key counting the chunks written and deleted since the last merge pass began (see `tidyAfterSync`). */
const REWRITTEN_META = 'rewrittenSinceMerge';
/** The meta key that says a merge pass has tables left, so that a process closed before it ended leaves it to the next one. */
const MERGE_PENDING_META = 'mergePending';
/** The meta key holding the common words' chunk counts when the vocabulary was last built, a JSON list (see `commonWordCounts`). */
const WORD_COUNTS_META = 'commonWordCounts';
/** Where builds before `commonWordCounts` kept the commonest words alone. */
const OLD_COMMON_WORDS_META = 'commonWords';
/** The meta key holding the chunking revision each language's files were chunked with, a JSON object (see `markChunkedBefore`). */
const CHUNKING_META = 'chunkingRevisions';
/** The meta key holding the paths kept out as secrets, a JSON list. */
const SECRET_FILES_META = 'secretFiles';
/** Paths a status shows of the secret files; the count is exact. */
const SECRET_EXAMPLES = 5;

export class IndexStore {
  readonly db: Db;
  readonly dbFile: string;
  /** Why the previous database at this path was moved aside, if it was. */
  readonly rebuiltBecause: string | undefined;
  /** Where the index this one replaced, sound but of another schema version, was moved (see openDatabase). */
  readonly previousVersion: string | undefined;
  private readonly statements;
  /** Kept in step by this connection's writes; another process's writes make it approximate. */
  private chunkCount: number;
  /**
   * Recent `countMatches` answers, so that one query's lists, weights and corrections, and the
   * next keystroke's query, count each phrase once. Cleared by this connection's writes; another
   * process's writes leave them approximate, which is all their callers need.
   */
  private readonly matchCounts = new Map<string, number>();
  /** The common words' chunk counts the last vocabulary build stored, commonest first (see `commonWordCounts`). */
  private wordCounts: Map<string, number> | undefined;
  /** Chunks this connection deleted since it last forgot the words no chunk holds (see `tidyAfterSync`). */
  private chunksDeleted = 0;
  /** Where the pass forgetting unused words goes on (the last word it compared), while one is due. */
  private forgetAfter: string | undefined;
  /** Chunks this connection wrote or deleted since `tidyAfterSync` last counted them. */
  private chunksRewritten = 0;
  /** The sum of every chunk's `trigramCount`, as the meta table keeps it; read when first needed. */
  private trigramTotal: number | undefined;
  /** The FTS5 tables the merge pass in progress has yet to bring down to one segment. */
  private unmerged: string[] = [];
  /** `catalogVersion`'s last answer, and the state of the database it was counted in. */
  private catalogSeen: { stamp: string; version: string } | undefined;
  /** Whether the first of `unmerged` has begun its merge. */
  private mergeBegun = false;
  /** Whether the merge pass has yet to give its free pages back to the disk. */
  private vacuumAfterMerge = false;

  /**
   * `existing`: a second connection to an index another connection of this process has open (the
   * bulk writer's thread): never created or moved aside, since its owner already vouched for it.
   */
  constructor(file: string, options: { readonly?: boolean; existing?: boolean } = {}) {
    const opened = openDatabase(file, options);
    this.db = opened.db;
    this.dbFile = file;
    this.rebuiltBecause = opened.rebuiltBecause;
    this.previousVersion = opened.previousVersion;
    const db = this.db;
    this.statements = {
      fileByPath: db.prepare(
        'SELECT id, path, size, mtime AS mtimeMs, hash, language, indexed_at AS indexedAt, chunk_count AS chunkCount FROM files WHERE path = ?',
      ),
      filesByPath: db.prepare(
        'SELECT id, path, size, mtime AS mtimeMs, hash, language, indexed_at AS indexedAt, chunk_count AS chunkCount FROM files WHERE path IN (SELECT value FROM json_each(?))',
      ),
      allPaths: db.prepare('SELECT path FROM files').pluck(),
      allFiles: db.prepare('SELECT id, path, size, mtime AS mtimeMs, hash, language, indexed_at AS indexedAt, chunk_count AS chunkCount FROM files'),
      upsertFile: db.prepare(`INSERT INTO files (path, size, mtime, hash, language, indexed_at, chunk_count)
        VALUES (@path, @size, @mtimeMs, @hash, @language, @indexedAt, @chunkCount)
        ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, hash = excluded.hash,
          language = excluded.language, indexed_at = excluded.indexed_at, chunk_count = excluded.chunk_count
        RETURNING id`),
      touchFile: db.prepare('UPDATE files SET size = ?, mtime = ? WHERE path = ?'),
      deleteFile: db.prepare('DELETE FROM files WHERE id = ?'),
      chunkTexts: db.prepare(
        'SELECT c.id, c.title, c.kind, c.text, f.path, l.trigrams AS trigramCount FROM chunks c JOIN files f ON f.id = c.file_id JOIN chunk_lengths l ON l.id = c.id WHERE c.file_id = ?',
      ),
      deleteChunks: db.prepare('DELETE FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))'),
      deletePorter: db.prepare("INSERT INTO fts_porter (fts_porter, rowid, title, text, humps) VALUES ('delete', ?, ?, ?, ?)"),
      deleteChunkWords: db.prepare("INSERT INTO fts_chunk_words (fts_chunk_words, rowid, title, words) VALUES ('delete', ?, ?, ?)"),
      deleteWords: db.prepare("INSERT INTO fts_words (fts_words, rowid, words) VALUES ('delete', ?, ?)"),
      insertChunk: db.prepare(`INSERT INTO chunks (id, file_id, ord, title, kind, start_line, end_line, text) VALUES ${CHUNK_ROW}`),
      insertChunks: db.prepare(`INSERT INTO chunks (id, file_id, ord, title, kind, start_line, end_line, text)
        VALUES ${Array.from({ length: CHUNK_ROWS_PER_INSERT }, () => CHUNK_ROW).join(', ')}`),
      lastChunkId: db.prepare('SELECT coalesce(max(id), 0) FROM chunks').pluck(),
      insertChunkLengths: db.prepare('INSERT INTO chunk_lengths (id, trigrams) SELECT value ->> 0, value ->> 1 FROM json_each(?)'),
      insertPorter: db.prepare('INSERT INTO fts_porter (rowid, title, text, humps) VALUES (?, ?, ?, ?)'),
      insertChunkWords: db.prepare('INSERT INTO fts_chunk_words (rowid, title, words) VALUES (?, ?, ?)'),
      addSeenWords: db.prepare('INSERT OR IGNORE INTO seen_words (word) SELECT value FROM json_each(?)'),
      holdsSubstring: db.prepare('SELECT 1 FROM word_trigrams WHERE word_trigrams MATCH ? LIMIT 1').pluck(),
      wordFrequencies: db
        .prepare(
          `SELECT i.doc, total(j.value * iif(i.col = 'title', ?, 1)) FROM json_each(?) j
          JOIN chunk_word_instances i ON i.term = j.key GROUP BY i.doc`,
        )
        .raw(),
      trigramCounts: db.prepare('SELECT id, trigrams FROM chunk_lengths WHERE id IN (SELECT value FROM json_each(?))').raw(),
      wordsContaining: db
        .prepare('SELECT word FROM seen_words WHERE id IN (SELECT rowid FROM word_trigrams WHERE word_trigrams MATCH ?) ORDER BY length(word), word LIMIT ?')
        .pluck(),
      insertWords: db.prepare('INSERT INTO fts_words (rowid, words) VALUES (?, ?)'),
      chunkById: db.prepare(`SELECT c.id, f.path, f.language, c.ord, c.title, c.kind, c.start_line AS startLine,
          c.end_line AS endLine, c.text FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?`),
      chunksById: db.prepare(`SELECT c.id, f.path, f.language, c.ord, c.title, c.kind, c.start_line AS startLine,
          c.end_line AS endLine, c.text FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`),
      chunksOfFile: db.prepare(`SELECT c.id, f.path, f.language, c.ord, c.title, c.kind, c.start_line AS startLine,
          c.end_line AS endLine, c.text FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.ord`),
      hasWord: db.prepare('SELECT 1 FROM fts_words WHERE fts_words MATCH ? LIMIT 1').pluck(),
      vocabulary: db.prepare('SELECT term, doc FROM words_vocab').raw(),
      vocabularyPage: db.prepare('SELECT term, doc FROM words_vocab WHERE term > ? ORDER BY term LIMIT ?').raw(),
      countChunks: db.prepare('SELECT count(*) FROM chunks').pluck(),
      moveChunkCount: db
        .prepare("UPDATE meta SET value = CAST(value AS INTEGER) + CAST(? AS INTEGER) WHERE key = 'chunkCount' RETURNING CAST(value AS INTEGER)")
        .pluck(),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
    this.chunkCount = this.storedChunkCount();
    if (this.meta(MERGE_PENDING_META) === '1') this.unmerged = [...FTS5_TABLES];
  }

  /**
   * Runs `fn` in one transaction: a file's old and new chunks are never visible half-replaced.
   * A failed transaction (a full disk) is rolled back whole, and the cached chunk count with it.
   * IMMEDIATE: it takes the write lock before its first read, waiting (busy_timeout) while another
   * connection writes. A deferred one would read first, and SQLite does not wait for a lock that a
   * reading transaction asks for: it fails at once with SQLITE_BUSY.
   */
  transaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      if (!this.db.inTransaction) {
        this.chunkCount = this.storedChunkCount();
        this.trigramTotal = undefined;
      }
      throw error;
    }
  }

  file(path: string): CatalogEntry | undefined {
    return this.statements.fileByPath.get(path) as CatalogEntry | undefined;
  }

  /** The catalog entries of these paths that are indexed, by path: one statement, as `chunks` reads. */
  files(paths: readonly string[]): Map<string, CatalogEntry> {
    const rows = this.statements.filesByPath.all(JSON.stringify(paths)) as CatalogEntry[];
    return new Map(rows.map((entry) => [entry.path, entry]));
  }

  /** Every indexed path, without the rest of the catalog row. */
  paths(): IterableIterator<string> {
    return this.statements.allPaths.iterate() as IterableIterator<string>;
  }

  catalog(): CatalogEntry[] {
    return this.statements.allFiles.all() as CatalogEntry[];
  }

  /** Replaces everything stored for one file. Touches only that file's rows. */
  replaceFile(record: FileRecord, chunks: readonly ChunkDraft[]): void {
    this.replaceFiles([{ record, chunks }]);
  }

  /**
   * Replaces everything stored for each of these files, in one transaction. Touches only their
   * rows. FTS5 writes its pending terms to disk at every statement savepoint, which a statement
   * that may have to be undone part-way opens (one of many rows, or one that fires a trigger):
   * interleaving them with a chunk's full-text rows made one tiny segment per chunk in each FTS
   * table and the merges to match. So each table is written in one run, chunks many rows per
   * statement, then each FTS table a row per statement: on the npm package that took the writes'
   * CPU from 3.4 s to 1.1 s. Chunk ids are what SQLite would have chosen, the largest so far plus one.
   */
  replaceFiles(files: readonly FileChunks[]): void {
    if (files.length === 0) return;
    const s = this.statements;
    this.matchCounts.clear();
    this.transaction(() => {
      const existing = files.map((file) => s.fileByPath.get(file.record.path) as CatalogEntry | undefined);
      this.deleteChunks(existing.flatMap((entry) => (entry ? [entry.id] : [])));
      let nextId = (s.lastChunkId.get() as number) + 1;
      let addedTrigrams = 0;
      const rows: Array<{ id: number; title: string; text: string; words: ChunkWords }> = [];
      const values: unknown[] = [];
      for (const { record, chunks, words } of files) {
        const { id: fileId } = s.upsertFile.get({ ...record, indexedAt: Date.now(), chunkCount: chunks.length }) as { id: number };
        chunks.forEach((chunk, ord) => {
          const title = indexedTitle(record.path, chunk);
          const lists = words?.[ord] ?? chunkWords(title, chunk.text);
          const id = nextId++;
          values.push(id, fileId, ord, chunk.title, chunk.kind, chunk.startLine, chunk.endLine, chunk.text);
          addedTrigrams += lists.trigramCount;
          rows.push({ id, title, text: chunk.text, words: lists });
        });
      }
      const full = CHUNK_ROWS_PER_INSERT * CHUNK_COLUMNS;
      let at = 0;
      for (; at + full <= values.length; at += full) s.insertChunks.run(values.slice(at, at + full));
      for (; at < values.length; at += CHUNK_COLUMNS) s.insertChunk.run(values.slice(at, at + CHUNK_COLUMNS));
      if (rows.length > 0) s.insertChunkLengths.run(JSON.stringify(rows.map((row) => [row.id, row.words.trigramCount])));
      for (const row of rows) s.insertPorter.run(row.id, row.title, row.text, row.words.humps);
      for (const row of rows) s.insertChunkWords.run(row.id, row.title, row.words.distinct);
      for (const row of rows) s.insertWords.run(row.id, vocabularyWords(row.words));
      const seen = new Set<string>();
      for (const row of rows) for (const word of row.words.distinct.split('\n')) if (word) seen.add(word);
      if (seen.size > 0) s.addSeenWords.run(JSON.stringify([...seen]));
      this.addTrigrams(addedTrigrams);
      this.moveChunkCount(rows.length);
      this.chunksRewritten += rows.length;
    });
  }

  /** Records a new size and mtime for a file whose content hash did not change. */
  touchFile(path: string, size: number, mtimeMs: number): void {
    this.statements.touchFile.run(size, mtimeMs, path);
  }

  /** A sync's batch in one transaction; returns what it changed in this store's counts, for `absorb`. */
  writeBatch({ files, touched }: WriteBatch): WriteTally {
    const before = { chunks: this.chunkCount, chunksDeleted: this.chunksDeleted, chunksRewritten: this.chunksRewritten };
    this.transaction(() => {
      for (const file of touched) this.touchFile(file.path, file.size, file.mtimeMs);
      this.replaceFiles(files);
    });
    return {
      chunks: this.chunkCount - before.chunks,
      chunksDeleted: this.chunksDeleted - before.chunksDeleted,
      chunksRewritten: this.chunksRewritten - before.chunksRewritten,
    };
  }

  /**
   * Takes in a batch another connection of this process wrote (`writeBatch` there): the caches
   * its writes would have cleared, and the counts they would have moved.
   */
  absorb(tally: WriteTally): void {
    this.matchCounts.clear();
    this.chunkCount += tally.chunks;
    this.chunksDeleted += tally.chunksDeleted;
    this.chunksRewritten += tally.chunksRewritten;
    this.trigramTotal = undefined;
  }

  removeFile(path: string): boolean {
    const s = this.statements;
    this.matchCounts.clear();
    return this.transaction(() => {
      const existing = s.fileByPath.get(path) as CatalogEntry | undefined;
      if (!existing) return false;
      this.deleteChunks([existing.id]);
      s.deleteFile.run(existing.id);
      return true;
    });
  }

  /** Deletes these files' chunks from every table, each table in one run (see `replaceFiles`). */
  private deleteChunks(fileIds: readonly number[]): void {
    const s = this.statements;
    const old = fileIds.flatMap(
      (fileId) => s.chunkTexts.all(fileId) as Array<{ id: number; title: string; kind: ChunkKind; text: string; path: string; trigramCount: number }>,
    );
    // FTS5 deletes what it is given: the row as it was indexed, under its indexed title.
    const rows = old.map((chunk) => {
      const title = indexedTitle(chunk.path, chunk);
      return { id: chunk.id, title, text: chunk.text, words: chunkWords(title, chunk.text) };
    });
    this.addTrigrams(-old.reduce((sum, chunk) => sum + chunk.trigramCount, 0));
    this.moveChunkCount(-rows.length);
    this.chunksDeleted += rows.length;
    this.chunksRewritten += rows.length;
    for (const row of rows) s.deletePorter.run(row.id, row.title, row.text, row.words.humps);
    for (const row of rows) s.deleteChunkWords.run(row.id, row.title, row.words.distinct);
    for (const row of rows) s.deleteWords.run(row.id, vocabularyWords(row.words));
    if (fileIds.length > 0) s.deleteChunks.run(JSON.stringify(fileIds));
  }

  chunk(id: number): StoredChunk | undefined {
    return this.statements.chunkById.get(id) as StoredChunk | undefined;
  }

  /**
   * The chunks of these ids that exist, by id. One statement for them all: a statement costs
   * 8–23 µs however little it reads, and a search reads 30 to 60 chunks (30 at 0.7 ms one by one
   * on the Linux tree, at 0.05 ms together).
   */
  chunks(ids: readonly number[]): Map<number, StoredChunk> {
    const rows = this.statements.chunksById.all(JSON.stringify(ids)) as StoredChunk[];
    return new Map(rows.map((chunk) => [chunk.id, chunk]));
  }

  chunksOfFile(path: string): StoredChunk[] {
    return this.statements.chunksOfFile.all(path) as StoredChunk[];
  }

  /**
   * Runs an FTS5 MATCH expression (built by the search module, never raw user input) and returns
   * the best `limit` chunks by BM25 with the title weighted `titleColumnWeight` times the text.
   * The trigram list's table keeps no positions, and FTS5 scores every row of it 0: its rows come
   * in id order, and the search ranks them itself (search/substrings.ts).
   */
  match(table: FtsTable, expression: string, limit: number, titleColumnWeight: number): ListRow[] {
    const fts = FTS_TABLES[table];
    const sql = `SELECT rowid AS id, bm25(${fts.name}, ?, ${fts.weights}) AS bm25 FROM ${fts.name} WHERE ${fts.name} MATCH ? ORDER BY bm25 LIMIT ?`;
    return this.cached(sql).all(titleColumnWeight, expression, limit) as ListRow[];
  }

  /**
   * The first `limit` chunks an expression matches, in id order, and those of them whose title
   * it matches: what a sample of the trigram list is scored from (its table cannot rank, see `match`).
   */
  firstMatches(table: FtsTable, expression: string, limit: number): { ids: number[]; inTitle: Set<number> } {
    const fts = FTS_TABLES[table].name;
    const ids = this.cached(`SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rowid LIMIT ?`).pluck().all(expression, limit) as number[];
    if (ids.length === 0) return { ids, inTitle: new Set() };
    // Every chunk up to the last id that matches in its title is among `ids`. Read in id order up
    // to that id rather than asked for with a rowid range, which FTS5 does not carry into an OR:
    // for `struc`'s words on the Linux tree the range took 240–310 ms, this 9 ms.
    const last = ids.at(-1)!;
    const inTitle = new Set<number>();
    for (const id of this.cached(`SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rowid`)
      .pluck()
      .iterate(`{title} : (${expression})`) as Iterable<number>) {
      if (id > last) break;
      inTitle.add(id);
    }
    return { ids, inTitle };
  }

  /**
   * Like `match`, but scores only the first `sample` matching chunks in id order. Used when an
   * expression matches so many chunks that scoring all of them would be slow and their order
   * would carry little signal anyway.
   */
  matchSample(table: FtsTable, expression: string, limit: number, titleColumnWeight: number, sample: number): ListRow[] {
    const fts = FTS_TABLES[table];
    const sql = `SELECT id, bm25 FROM (SELECT rowid AS id, bm25(${fts.name}, ?, ${fts.weights}) AS bm25 FROM ${fts.name}
      WHERE ${fts.name} MATCH ? ORDER BY rowid LIMIT ?) ORDER BY bm25 LIMIT ?`;
    return this.cached(sql).all(titleColumnWeight, expression, sample, limit) as ListRow[];
  }

  /**
   * Like `matchSample`, but the sample is ranked by the BM25 of `rankedBy`, an expression every
   * chunk of the sample matches too, of fewer phrases. bm25() counts, for each phrase's IDF, every
   * chunk that holds it, and for a common word (`is`, `device`: 240,000 chunks of the Linux tree
   * each) that count is most of a question's time.
   */
  matchSampleRankedBy(table: FtsTable, expression: string, rankedBy: string, limit: number, titleColumnWeight: number, sample: number): ListRow[] {
    const fts = FTS_TABLES[table];
    const ids = this.cached(`SELECT rowid FROM ${fts.name} WHERE ${fts.name} MATCH ? ORDER BY rowid LIMIT ?`).pluck().all(expression, sample) as number[];
    if (ids.length === 0) return [];
    // `+rowid`: the list of ids filters the rows FTS5 returns, before bm25() scores them. Given to
    // FTS5 as a constraint instead, it would run the expression once per id, counting IDFs each time.
    const sql = `SELECT rowid AS id, bm25(${fts.name}, ?, ${fts.weights}) AS bm25 FROM ${fts.name}
      WHERE ${fts.name} MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?)) ORDER BY bm25 LIMIT ?`;
    return this.cached(sql).all(titleColumnWeight, rankedBy, ids[0], ids.at(-1), JSON.stringify(ids), limit) as ListRow[];
  }

  /** How many chunks the index holds (cheap; no table scan). */
  get size(): number {
    return this.chunkCount;
  }

  /**
   * How many chunks (counting up to `cap`) match an FTS5 expression. The cap bounds the cost:
   * callers compare small counts and only need to know that a large one is large. (fts5vocab's
   * document counts walk a term's whole posting list, hundreds of thousands of entries for a
   * common word in a big tree.) Even so a count of 4,001 takes half a millisecond, and a search of
   * a big tree asks for dozens, mostly of common words (a question's feedback candidates:
   * `return`, `int`, `static`…), so a word the last vocabulary build found in at least `cap`
   * chunks is not counted again: a chunk that holds a word holds its Porter stem, so its Porter
   * count is at least that. (Deleting files can take a word below its figure until the next build,
   * which a drift of 1% of the files brings.)
   */
  countMatches(table: FtsTable, expression: string, cap: number): number {
    if (table === 'porter' && (this.chunksHoldingAtLeast(expression) ?? 0) >= cap) return cap;
    const key = `${table}\0${cap}\0${expression}`;
    let count = this.matchCounts.get(key);
    if (count === undefined) {
      const fts = FTS_TABLES[table].name;
      count = this.cached(`SELECT count(*) AS n FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? LIMIT ?)`).pluck().get(expression, cap) as number;
      if (this.matchCounts.size >= MATCH_COUNTS_KEPT) this.matchCounts.clear();
      this.matchCounts.set(key, count);
    }
    return count;
  }

  /**
   * For a Porter phrase of one word, how many chunks the last vocabulary build found holding the
   * word, if it was common then: at least that many hold its stem (see `countMatches`).
   */
  chunksHoldingAtLeast(expression: string): number | undefined {
    const word = /^"([\p{L}\p{M}\p{N}]+)"$/u.exec(expression)?.[1];
    if (word === undefined) return undefined;
    return this.storedWordCounts().get(word);
  }

  /**
   * Whether any chunk holds this unstemmed word. A lookup, not a count (fts5vocab's counts walk
   * the word's whole posting list): the search asks this for every query piece.
   */
  hasWord(word: string): boolean {
    try {
      return this.statements.hasWord.get(quote(word)) !== undefined;
    } catch {
      // The tokenizer split the word in two (a letter under an overlay mark), and a phrase is
      // more than a detail=none table answers. Such a word is no typo a correction could fix.
      return true;
    }
  }

  /**
   * Up to `limit` words of the index that hold `substring` (three characters or more), shortest
   * first: the word itself, then the words built on it (`alloc`, `kmalloc`, `alloc_pages`).
   */
  wordsContaining(substring: string, limit: number): string[] {
    return this.statements.wordsContaining.all(quote(substring), limit) as string[];
  }

  /** Whether any word of the index holds `substring` (three characters or more); stops at the first. */
  holdsSubstring(substring: string): boolean {
    return this.statements.holdsSubstring.get(quote(substring)) !== undefined;
  }

  /**
   * Each chunk that holds any of these words, with the sum of their weights: a word's weight each
   * time it is held, `titleWeight` times that in the title. Summed in SQL, one row per chunk.
   */
  wordFrequencies(weights: ReadonlyMap<string, number>, titleWeight: number): Array<[chunkId: number, frequency: number]> {
    return this.statements.wordFrequencies.all(titleWeight, JSON.stringify(Object.fromEntries(weights))) as Array<[number, number]>;
  }

  /** Each chunk's `trigramCount` (see ChunkWords), by chunk id. */
  trigramCounts(ids: readonly number[]): Map<number, number> {
    return new Map(this.statements.trigramCounts.all(JSON.stringify(ids)) as Array<[number, number]>);
  }

  /** The average `trigramCount` of a chunk. */
  get averageTrigramCount(): number {
    this.trigramTotal ??= Number(this.meta(TRIGRAM_TOTAL_META) ?? 0);
    return this.chunkCount === 0 ? 0 : this.trigramTotal / this.chunkCount;
  }

  /**
   * Reads the chunks' file index once, as counting the chunks at open used to do: a search right
   * after opening then reads warm pages. On the Linux tree a host's first search after it took
   * p50 35 ms against 54–65 ms without it (bench:first-query); the read is 70–90 ms there, which
   * the CLI's one-shot search no longer pays before it starts.
   */
  warmUp(): void {
    this.statements.countChunks.get();
  }

  /**
   * The words in the most chunks when the vocabulary was last built, commonest first, with how
   * many chunks held each then (`saveCommonWordCounts`). A query of one of them reads its Porter
   * postings, the index's longest (struct, static, device: 200,000 to 900,000 chunks on the Linux
   * tree), and a first query reads them from the file.
   */
  commonWordCounts(): Array<[word: string, chunks: number]> {
    return [...this.storedWordCounts()];
  }

  saveCommonWordCounts(counts: ReadonlyArray<readonly [word: string, chunks: number]>): void {
    this.transaction(() => {
      this.setMeta(WORD_COUNTS_META, JSON.stringify(counts));
      this.db.prepare('DELETE FROM meta WHERE key = ?').run(OLD_COMMON_WORDS_META);
    });
    this.wordCounts = new Map(counts);
  }

  private storedWordCounts(): Map<string, number> {
    if (!this.wordCounts) {
      let stored: unknown;
      try {
        stored = JSON.parse(this.meta(WORD_COUNTS_META) ?? '[]');
      } catch {
        stored = [];
      }
      this.wordCounts = new Map(Array.isArray(stored) ? stored.filter(isWordCount) : []);
    }
    return this.wordCounts;
  }

  /** Reads a word's Porter postings once, which leaves their pages in this connection's cache. */
  readPostings(word: string): void {
    this.cached('SELECT count(*) FROM fts_porter WHERE fts_porter MATCH ?').pluck().get(quote(word));
  }

  /** The stored count, or a count of the rows in an index that holds none. */
  private storedChunkCount(): number {
    const stored = this.meta(CHUNK_COUNT_META);
    return stored === undefined ? (this.statements.countChunks.get() as number) : Number(stored);
  }

  /** Moves the stored count by `delta` inside the write's transaction, from whatever any connection left it at. */
  private moveChunkCount(delta: number): void {
    if (delta === 0) return;
    const moved = this.statements.moveChunkCount.get(delta) as number | undefined;
    if (moved !== undefined) this.chunkCount = moved;
    else {
      this.chunkCount = this.statements.countChunks.get() as number;
      this.setMeta(CHUNK_COUNT_META, String(this.chunkCount));
    }
  }

  private addTrigrams(count: number): void {
    if (count === 0) return;
    this.trigramTotal = Number(this.meta(TRIGRAM_TOTAL_META) ?? 0) + count;
    this.setMeta(TRIGRAM_TOTAL_META, String(this.trigramTotal));
  }

  /** Every distinct word in the index with the number of chunks that hold it. */
  vocabulary(): { words: string[]; docFreq: number[] } {
    const words: string[] = [];
    const docFreq: number[] = [];
    for (const [term, doc] of this.statements.vocabulary.iterate() as Iterable<[string, number]>) {
      words.push(term);
      docFreq.push(doc);
    }
    return { words, docFreq };
  }

  /**
   * The next `limit` distinct words after `after` in the index's order, each with the number of
   * chunks that hold it: the vocabulary a page at a time, so that building it from a big index
   * (0.9 M words on the Linux tree, 2–4 s) can leave searches in between.
   */
  vocabularyPage(after: string, limit: number): Array<[word: string, chunks: number]> {
    return this.statements.vocabularyPage.all(after, limit) as Array<[string, number]>;
  }

  /** The vocabulary snapshot `saveVocabularySnapshot` stored, with the file count it was built at. */
  vocabularySnapshot(): VocabularySnapshot | undefined {
    // The word counts came with the last build this connection saw; another process may have built since.
    this.wordCounts = undefined;
    try {
      return this.cached('SELECT built_at AS builtAt, files, data AS header FROM vocabulary_snapshot WHERE id = 1').get() as VocabularySnapshot | undefined;
    } catch {
      return undefined; // A read-only connection to an index from before the table existed.
    }
  }

  /** The snapshot's targets of one length, unless a newer snapshot replaced the one built at `builtAt`. */
  vocabularyBucket(builtAt: number, length: number): Uint8Array | undefined {
    try {
      return this.cached('SELECT data FROM vocabulary_buckets WHERE length = ? AND built_at = ?').pluck().get(length, builtAt) as Uint8Array | undefined;
    } catch {
      return undefined; // A read-only connection to an index from before the table existed.
    }
  }

  /** Replaces the stored vocabulary snapshot: its header and its buckets, in one transaction. */
  saveVocabularySnapshot(snapshot: VocabularySnapshot, buckets: ReadonlyMap<number, Uint8Array>): void {
    this.transaction(() => {
      this.cached(
        `INSERT INTO vocabulary_snapshot (id, built_at, files, data) VALUES (1, @builtAt, @files, @header)
        ON CONFLICT (id) DO UPDATE SET built_at = excluded.built_at, files = excluded.files, data = excluded.data`,
      ).run(snapshot);
      this.cached('DELETE FROM vocabulary_buckets').run();
      const insert = this.cached('INSERT INTO vocabulary_buckets (length, built_at, data) VALUES (?, ?, ?)');
      for (const [length, data] of buckets) insert.run(length, snapshot.builtAt, data);
    });
  }

  /**
   * Files added, changed or removed since `since` (ms since the epoch), given the file count then:
   * how far a snapshot taken at that moment has drifted from the index.
   */
  filesChangedSince(since: number, filesThen: number): number {
    const { changed, files } = this.cached('SELECT (SELECT count(*) FROM files WHERE indexed_at > ?) AS changed, (SELECT count(*) FROM files) AS files').get(
      since,
    ) as {
      changed: number;
      files: number;
    };
    return changed + Math.max(0, filesThen - files);
  }

  meta(key: string): string | undefined {
    return this.statements.getMeta.get(key) as string | undefined;
  }

  setMeta(key: string, value: string): void {
    this.statements.setMeta.run(key, value);
  }

  /**
   * Reads a meta value and writes what `decide` returns (a string: store it; null: delete the key;
   * undefined: leave it) in one IMMEDIATE transaction, so two processes deciding from the same
   * value cannot both win. Returns the value the key holds afterwards.
   */
  exchangeMeta(key: string, decide: (current: string | undefined) => string | null | undefined): string | undefined {
    const s = this.statements;
    return this.db
      .transaction(() => {
        const current = s.getMeta.get(key) as string | undefined;
        const next = decide(current);
        if (next === undefined) return current;
        if (next === null) {
          this.db.prepare('DELETE FROM meta WHERE key = ?').run(key);
          return undefined;
        }
        s.setMeta.run(key, next);
        return next;
      })
      .immediate();
  }

  /**
   * Changes whenever a file is indexed, updated or removed, by any process: the file count and the
   * newest update. Counting takes 3–4 ms on the Linux tree, and the semantic lane asks at every
   * search, so it is counted again only when the database changed: another connection committed
   * (`data_version`) or this one changed rows (`total_changes()`).
   */
  catalogVersion(): string {
    const { dataVersion, changes } = this.cached('SELECT data_version AS dataVersion, total_changes() AS changes FROM pragma_data_version()').get() as {
      dataVersion: number;
      changes: number;
    };
    const stamp = `${dataVersion} ${changes}`;
    if (this.catalogSeen?.stamp === stamp) return this.catalogSeen.version;
    const { files, newest } = this.cached('SELECT count(*) AS files, max(indexed_at) AS newest FROM files').get() as { files: number; newest: number | null };
    this.catalogSeen = { stamp, version: `${files} ${newest}` };
    return this.catalogSeen.version;
  }

  stats(): IndexStats {
    const totals = this.db
      .prepare(
        `SELECT (SELECT count(*) FROM files) AS files, (SELECT count(*) FROM chunks) AS chunks,
        (SELECT coalesce(sum(size), 0) FROM files) AS textBytes, (SELECT max(indexed_at) FROM files) AS lastIndexedAt`,
      )
      .get() as {
      files: number;
      chunks: number;
      textBytes: number;
      lastIndexedAt: number | null;
    };
    const languages: Record<string, number> = {};
    for (const row of this.db.prepare('SELECT language, count(*) AS n FROM files GROUP BY language ORDER BY n DESC').all() as Array<{
      language: string;
      n: number;
    }>) {
      languages[row.language] = row.n;
    }
    const secret = this.secretFiles();
    return { ...totals, diskBytes: this.diskBytes(), languages, secretFiles: { count: secret.length, examples: secret.slice(0, SECRET_EXAMPLES) } };
  }

  /** The paths kept out of the index as secrets (see SkipReason), sorted. */
  secretFiles(): string[] {
    const stored = this.meta(SECRET_FILES_META);
    if (stored === undefined) return [];
    try {
      const paths: unknown = JSON.parse(stored);
      return Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      return [];
    }
  }

  /**
   * Marks as changed the files of each language whose chunking revision is newer than the one the
   * index holds, and records the new revisions: the next sync reads and chunks them again as it
   * does an edited file, while searches keep answering from the old chunks. An index that records
   * none was chunked at revision 0. Returns how many files were marked.
   */
  markChunkedBefore(revisions: Readonly<Record<string, number>>): number {
    let stored: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(this.meta(CHUNKING_META) ?? '{}');
      if (parsed && typeof parsed === 'object') stored = parsed as Record<string, unknown>;
    } catch {
      // Unreadable: every language with a revision is chunked again, which is always safe.
    }
    const behind = Object.keys(revisions).filter((language) => revisions[language]! > (typeof stored[language] === 'number' ? stored[language] : 0));
    // Every sync asks; only the first after a chunker change writes.
    if (behind.length === 0) return 0;
    return this.transaction(() => {
      // An mtime no file has and no hash make the next sync read the file and chunk it.
      const marked = this.db
        .prepare("UPDATE files SET mtime = -1, hash = '' WHERE language IN (SELECT value FROM json_each(?))")
        .run(JSON.stringify(behind)).changes;
      this.setMeta(CHUNKING_META, JSON.stringify({ ...stored, ...revisions }));
      return marked;
    });
  }

  setSecretFiles(paths: Iterable<string>): void {
    this.setMeta(SECRET_FILES_META, JSON.stringify([...new Set(paths)].sort()));
  }

  /**
   * What a sync that changed files leaves to tidy:
   * - a pass that forgets the words no chunk holds any more begins (`forgetUnusedWords`), when
   *   enough were deleted (FORGET_UNUSED_WORDS_AT);
   * - a merge pass begins (`beginMerge`) once the chunks written and deleted since the last one
   *   reach MERGE_AFTER_SHARE of the index, counted across processes. Besides the segments a bulk
   *   write leaves, FTS5 deletes by writing tombstones into new segments, so the old entries stay
   *   until the segments merge: on the Linux tree, 5,000 files changed and restored took the index
   *   from 2.64× to 2.86× the text;
   * - the file's free pages go back to the disk. FTS5 merges its segments as it goes and leaves
   *   the pages of the merged ones free; after a bulk load that is about a tenth of the file,
   *   which the next writes would only slowly reuse. (A no-op on a database created before auto_vacuum.)
   */
  tidyAfterSync(): void {
    if (this.chunksDeleted > 0 && this.chunksDeleted >= this.chunkCount * FORGET_UNUSED_WORDS_AT) {
      this.forgetAfter = '';
      this.chunksDeleted = 0;
    }
    const rewritten = Number(this.meta(REWRITTEN_META) ?? 0) + this.chunksRewritten;
    this.chunksRewritten = 0;
    if (rewritten >= Math.max(1, this.chunkCount * MERGE_AFTER_SHARE)) {
      this.beginMerge();
      this.setMeta(REWRITTEN_META, '0');
    } else {
      this.setMeta(REWRITTEN_META, String(rewritten));
    }
    this.db.pragma('incremental_vacuum');
  }

  /** Whether a pass forgetting unused words has steps left (`forgetUnusedWords`). */
  get forgetting(): boolean {
    return this.forgetAfter !== undefined;
  }

  /**
   * One step of the pass that forgets the words no chunk holds any more: the next
   * FORGET_STEP_WORDS of the index's terms, in order, against the remembered words in the same
   * range. Both lists are read in the step, so a word written between steps is never taken for
   * unused. Returns whether the pass has more to do.
   */
  forgetUnusedWords(): boolean {
    const after = this.forgetAfter;
    if (after === undefined) return false;
    const terms = this.cached('SELECT term FROM chunk_words_vocab WHERE term > ? ORDER BY term LIMIT ?').pluck().all(after, FORGET_STEP_WORDS) as string[];
    const last = terms.length === FORGET_STEP_WORDS ? terms.at(-1)! : undefined;
    const words = (
      last === undefined
        ? this.cached('SELECT id, word FROM seen_words WHERE word > ?').all(after)
        : this.cached('SELECT id, word FROM seen_words WHERE word > ? AND word <= ?').all(after, last)
    ) as Array<{ id: number; word: string }>;
    const held = new Set(terms);
    const unused = words.filter(({ word }) => !held.has(word));
    if (unused.length > 0) {
      const forget = this.cached('DELETE FROM seen_words WHERE id = ?');
      this.transaction(() => {
        for (const { id } of unused) forget.run(id);
      });
    }
    this.forgetAfter = last;
    return last !== undefined;
  }

  /**
   * Starts a pass that merges each FTS5 table's segments into one, as FTS5's `optimize` does, in
   * the steps `mergeSegments` takes. A bulk write leaves a dozen segments per table, and every
   * term a query looks up is sought in each: on the npm tree the trigram list's word lookups took
   * three times as long. One `optimize` would hold the write lock, and this thread, for seconds on
   * a big tree (30 s on the Linux tree).
   */
  beginMerge(): void {
    this.unmerged = [...FTS5_TABLES];
    this.mergeBegun = false;
    this.setMeta(MERGE_PENDING_META, '1');
  }

  /**
   * Begins a merge pass when the index is small enough to merge whole in a moment
   * (FRAGMENTED_MERGE_MAX_CHUNKS) and a table holds more than MAX_SEGMENTS segments. Each save
   * writes a segment to every table and FTS5 merges them only eight at a time, while the share
   * rule of `tidyAfterSync` waits for a tenth of the index to be rewritten by syncs: an index of
   * npm's tree held ten segments a table, and its queries took half as long again as merged
   * (every word the trigram list looks up is sought in each segment). Returns whether a pass began.
   */
  beginMergeIfFragmented(): boolean {
    if (this.merging || this.db.readonly || this.chunkCount > FRAGMENTED_MERGE_MAX_CHUNKS) return false;
    if (!Object.values(this.segmentCounts()).some((count) => count > MAX_SEGMENTS)) return false;
    this.beginMerge();
    return true;
  }

  /** How many segments each FTS5 table holds: one after a merge pass, one more for each write since, until FTS5 merges them. */
  segmentCounts(): Record<Fts5Table, number> {
    const count = (table: string) => this.cached(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get() as number;
    return Object.fromEntries(FTS5_TABLES.map((table) => [table, count(table)])) as Record<Fts5Table, number>;
  }

  /** Whether a merge pass has steps left (`mergeSegments`). */
  get merging(): boolean {
    return this.unmerged.length > 0 || this.vacuumAfterMerge;
  }

  /**
   * One step of the merge pass: about a megabyte written, so that a search or a save waits for
   * little. Once every table is one segment, the pages the merges left free go back to the disk,
   * in steps as well. Returns whether the pass has more to do.
   */
  mergeSegments(): boolean {
    const totalChanges = this.cached('SELECT total_changes()').pluck();
    while (this.unmerged.length > 0) {
      const table = this.unmerged[0]!;
      const before = totalChanges.get() as number;
      // FTS5's protocol: a negative count begins a merge of every segment, a positive one carries
      // it on without taking in the segments written since (a save's), which would restart it.
      this.cached(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`).run(this.mergeBegun ? MERGE_STEP_PAGES : -MERGE_STEP_PAGES);
      this.mergeBegun = true;
      if ((totalChanges.get() as number) - before >= 2) return true;
      this.unmerged.shift();
      this.mergeBegun = false;
      this.vacuumAfterMerge = true;
      if (this.unmerged.length === 0) this.setMeta(MERGE_PENDING_META, '0');
    }
    if (!this.vacuumAfterMerge) return false;
    const freePages = () => this.db.pragma('freelist_count', { simple: true }) as number;
    const before = freePages();
    this.db.pragma(`incremental_vacuum(${VACUUM_STEP_PAGES})`);
    const after = freePages();
    // Without auto_vacuum (a database from before it) nothing is given back, and nothing remains to do.
    this.vacuumAfterMerge = after > 0 && after < before;
    return this.vacuumAfterMerge;
  }

  close(): void {
    if (!this.db.open) return;
    if (this.db.readonly) {
      // `optimize` writes: a read-only connection just closes.
      this.db.close();
      return;
    }
    try {
      // Worth doing, not worth waiting for: while another process writes this database (the window
      // that keeps the index), the lock it may need is theirs.
      this.db.pragma('busy_timeout = 0');
      this.db.pragma('optimize');
    } catch (error) {
      if (!isBusy(error)) throw error;
    } finally {
      this.db.close();
    }
  }

  private diskBytes(): number {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    return pageSize * pages;
  }

  private readonly statementCache = new Map<string, Statement>();

  private cached(sql: string): Statement {
    let statement = this.statementCache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  }
}

/** FTS5 string literal: the tokenizer sees the characters, the query parser sees one phrase. */
export function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function isWordCount(entry: unknown): entry is [string, number] {
  return Array.isArray(entry) && typeof entry[0] === 'string' && Number.isFinite(entry[1]);
}
