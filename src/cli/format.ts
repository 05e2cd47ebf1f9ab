// Plain-text renderings of the engine's answers for people at a terminal.

import { numberedLine } from '../core/agent-text.ts';
import type { EvalReport } from '../core/eval/run.ts';
import type { IndexSummary } from '../core/indexer.ts';
import type { LocateAnswer } from '../core/locate.ts';
import { clueSummary } from '../core/locate-output.ts';
import type { IndexStats } from '../core/store/store.ts';
import { copiesNote, describeAsText, secretFilesNote, unmatchedNote } from '../core/describe.ts';
import type { SearchResponse, SearchResult } from '../core/types.ts';

/** Copies of a result's text named by place; the others are counted. */
const COPIES_LISTED = 3;

const n = (value: number) => value.toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export function formatSummary(summary: IndexSummary, stats: IndexStats): string {
  const lines = [
    `Indexed ${n(summary.files)} files, ${n(summary.chunks)} chunks in ${summary.seconds.toFixed(1)} s ` +
      `(${mb(summary.bytes)} read; ${n(summary.added)} added, ${n(summary.updated)} updated, ${n(summary.unchanged)} unchanged, ${n(summary.removed)} removed).`,
    `Index size on disk: ${mb(stats.diskBytes)}.`,
  ];
  const skipped = Object.entries(summary.skipped);
  if (skipped.length > 0) lines.push(`Skipped: ${skipped.map(([reason, count]) => `${n(count)} ${reason}`).join(', ')}.`);
  if (summary.skipped.secret) lines.push(secretLine(summary.skipped.secret, stats.secretFiles.examples));
  if (!summary.complete) lines.push('Interrupted: run the same command again to finish; what was indexed is kept.');
  return lines.join('\n');
}

export function formatStats(root: string, stats: IndexStats): string {
  const languages = Object.entries(stats.languages)
    .slice(0, 8)
    .map(([language, count]) => `${language} ${n(count)}`)
    .join(', ');
  return [
    `Folder:   ${root}`,
    `Files:    ${n(stats.files)}`,
    `Chunks:   ${n(stats.chunks)}`,
    `Text:     ${mb(stats.textBytes)}`,
    `On disk:  ${mb(stats.diskBytes)}`,
    `Updated:  ${stats.lastIndexedAt ? new Date(stats.lastIndexedAt).toISOString() : 'never'}`,
    `Languages: ${languages || 'none'}`,
    ...(stats.secretFiles.count > 0 ? [secretLine(stats.secretFiles.count, stats.secretFiles.examples)] : []),
  ].join('\n');
}

/** Which files were kept out for holding credentials, and how to let them in. */
function secretLine(count: number, examples: string[]): string {
  return `${secretFilesNote(count, examples)}; --index-secret-files indexes them.`;
}

/** What a search says of the query as a whole: the words it corrected and the words no file holds. */
export function answerNotes(response: Pick<SearchResponse, 'corrections' | 'unmatched' | 'results'>): string[] {
  const lines: string[] = [];
  if (response.corrections.length > 0) {
    lines.push(`Showing results for the corrected words: ${response.corrections.map(([from, to]) => `${from} → ${to}`).join(', ')}`);
  }
  if (response.unmatched.length > 0) {
    lines.push(`Note: ${unmatchedNote(response.unmatched, response.results.length)}.`);
  }
  return lines;
}

export function formatResults(response: SearchResponse, options: { explain: boolean; color: boolean }): string {
  const bold = (s: string) => (options.color ? `\x1b[1m${s}\x1b[22m` : s);
  const dim = (s: string) => (options.color ? `\x1b[2m${s}\x1b[22m` : s);
  const lines = answerNotes(response);
  if (options.explain && response.feedbackWords.length > 0) lines.push(dim(`Feedback words: ${response.feedbackWords.join(', ')}`));
  if (response.results.length === 0) lines.push('No results.');
  response.results.forEach((result, index) => {
    const where = `${result.path}:${result.startLine}-${result.endLine}`;
    lines.push(`${String(response.offset + index + 1).padStart(2)}  ${bold(where)}  ${result.stage.padEnd(9)}  ${result.title}`);
    lines.push(`    ${dim(highlight(result, options.color))}`);
    if (result.copies) lines.push(`    ${dim(copiesNote(result.copies, COPIES_LISTED))}`);
    if (options.explain) lines.push(...describeAsText(result).map((line) => `    ${line}`));
  });
  return lines.join('\n');
}

function highlight(result: SearchResult, color: boolean): string {
  if (!color) return result.snippet;
  let out = '';
  let at = 0;
  for (const [start, end] of result.matches) {
    out += result.snippet.slice(at, start) + `\x1b[22m\x1b[1m${result.snippet.slice(start, end)}\x1b[22m\x1b[2m`;
    at = end;
  }
  return out + result.snippet.slice(at);
}

export function formatEval(report: EvalReport): string {
  const rows = Object.entries(report.results).map(
    ([name, s]) => `${name.padEnd(10)} ${s.ndcg10.toFixed(3).padStart(8)} ${s.mrr10.toFixed(3).padStart(8)} ${s.recall100.toFixed(3).padStart(8)}`,
  );
  return [
    `${report.dataset} (${report.split}, ${report.queries} queries)`,
    `${'ablation'.padEnd(10)} ${'nDCG@10'.padStart(8)} ${'MRR@10'.padStart(8)} ${'R@100'.padStart(8)}`,
    ...rows,
  ].join('\n');
}

/** Ranked files, each with its reasons and its best chunks' lines. */
export function formatLocate(answer: LocateAnswer): string {
  if (answer.files.length === 0) return `No indexed file matches what the text points at (${clueSummary(answer)}).`;
  const lines = [`From ${clueSummary(answer)} (${answer.elapsedMs.toFixed(0)} ms):`, ''];
  answer.files.forEach((file, i) => {
    // `path:line`, which a terminal opens at the line its stack frame names.
    lines.push(`${i + 1}. ${file.path}${file.line !== undefined ? `:${file.line}` : ''}  (${file.score.toFixed(1)})`);
    if (file.line !== undefined && file.lineText !== undefined) lines.push(`     ${numberedLine(file.line, file.lineText).trimEnd()}`);
    for (const why of file.why) lines.push(`     ${why}`);
    for (const chunk of file.chunks) lines.push(`     ${file.path}:${chunk.startLine}-${chunk.endLine}  ${chunk.title}`);
  });
  return lines.join('\n');
}
