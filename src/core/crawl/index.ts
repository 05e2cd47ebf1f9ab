// The crawl: which files of a folder the index should hold, and their text.

export { crawl, type CrawlEntry, type CrawlOptions } from './walk.ts';
export { createPathFilter, type PathFilter } from './path-filter.ts';
export { readTextFile, type ReadResult } from './read.ts';
export { isSecretFile } from './secret-files.ts';
