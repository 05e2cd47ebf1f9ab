// Result filters. They run on fused candidates before the cut to `limit`, over a deeper pool,
// so a filtered search still fills its page when enough matching chunks exist.

import picomatch from 'picomatch';
import type { SearchFilters } from '../options.ts';
import type { StoredChunk } from '../store/store.ts';

export type ChunkFilter = (chunk: StoredChunk) => boolean;

export function isFiltered(filters: SearchFilters): boolean {
  return Boolean(filters.include?.length || filters.exclude?.length || filters.kind || filters.language?.length);
}

export function compileFilter(filters: SearchFilters): ChunkFilter {
  // A glob without a slash matches the file name anywhere, as in .gitignore and VS Code's search.
  const globOptions = { dot: true, basename: false };
  const matcher = (globs: string[]) => {
    const matchers = globs.map((glob) => picomatch(glob, { ...globOptions, basename: !glob.includes('/') }));
    return (path: string) => matchers.some((m) => m(path));
  };
  const include = filters.include?.length ? matcher(filters.include) : undefined;
  const exclude = filters.exclude?.length ? matcher(filters.exclude) : undefined;
  const languages = filters.language?.length ? new Set(filters.language) : undefined;
  return (chunk) =>
    (!filters.kind || chunk.kind === filters.kind) &&
    (!languages || languages.has(chunk.language)) &&
    (!include || include(chunk.path)) &&
    (!exclude || !exclude(chunk.path));
}
