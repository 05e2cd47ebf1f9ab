// A `locate` answer as a coding agent reads it: one line per file (path, score, the reasons),
// then its best chunks' line ranges and ids, within a byte budget. The MCP `locate` tool prints
// exactly this text, so the one place that makes it is the one place to filter it.
//
// Honesty rules as for a search (agent-output.ts): the text says how many files it left out for
// the budget, and how to get the lines of a chunk (`read_chunk`, `read_range`).

import { bytes, numberedLine, oneLine, titleUnderPath } from './agent-text.ts';
import type { LocateAnswer } from './locate.ts';
import { DEFAULT_AGENT_BUDGET_BYTES, MIN_AGENT_BUDGET_BYTES } from './options.ts';

const MAX_TITLE_CHARS = 80;

export interface LocateOutput {
  text: string;
  /** UTF-8 bytes of `text`; never more than the budget. */
  bytes: number;
  /** Files listed in full; the rest were left out for the budget. */
  shown: number;
}

export function formatLocateForAgent(answer: LocateAnswer, options: { budgetBytes?: number } = {}): LocateOutput {
  const budget = Math.max(MIN_AGENT_BUDGET_BYTES, Math.floor(options.budgetBytes ?? DEFAULT_AGENT_BUDGET_BYTES));
  const { files } = answer;
  if (files.length === 0) {
    const text = `No indexed file matches what the text points at (${clueSummary(answer)}).\n`;
    return { text: fit(text, budget), bytes: Math.min(bytes(text), budget), shown: 0 };
  }
  const header = `${files.length} file${files.length === 1 ? '' : 's'} to look at, best first (from ${clueSummary(answer)}):\n`;
  const trailer = (left: number) =>
    (left > 0 ? `[${left} more file${left === 1 ? '' : 's'} left out to stay within ${budget} bytes; ask with a larger budget_bytes.]\n` : '') +
    'Read a chunk with read_chunk(id), any lines with read_range(path, start_line, end_line).\n';
  let text = header;
  let shown = 0;
  for (const file of files) {
    // Room for the trailer as it would read with the most files left out. A file whose block is
    // too big for what is left goes in short: its strongest reason and its best chunk.
    const room = budget - bytes(text) - bytes(trailer(files.length));
    const block = [fileBlock(file, shown + 1), fileBlock({ ...file, why: file.why.slice(0, 1), chunks: file.chunks.slice(0, 1) }, shown + 1)].find(
      (candidate) => bytes(candidate) <= room,
    );
    if (block === undefined) break;
    text += block;
    shown++;
  }
  text += trailer(files.length - shown);
  const final = fit(text, budget);
  return { text: final, bytes: bytes(final), shown };
}

function fileBlock(file: LocateAnswer['files'][number], rank: number): string {
  const lines = [`${rank}. ${file.path} (score ${file.score}): ${file.why.join('; ')}`];
  // The line its stack frame names, which an agent would read first.
  if (file.line !== undefined && file.lineText !== undefined) lines.push(`   ${numberedLine(file.line, file.lineText).trimEnd()}`);
  for (const chunk of file.chunks) {
    const title = oneLine(titleUnderPath(file.path, chunk.title, chunk.kind), MAX_TITLE_CHARS);
    // Under its file's line, as a search answer prints a result under its file: the path once.
    lines.push(`   ${chunk.startLine}-${chunk.endLine}${title ? ` ${title}` : ''} · chunk ${chunk.chunkId}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What was read from the text, counted by kind: "2 frames, 1 message, 9 words". */
export function clueSummary(answer: Pick<LocateAnswer, 'clues'>): string {
  const counts = new Map<string, number>();
  for (const clue of answer.clues) counts.set(clue.kind, (counts.get(clue.kind) ?? 0) + 1);
  if (counts.size === 0) return 'no frames, paths, names, messages or words';
  return [...counts].map(([kind, count]) => `${count} ${kind}${count === 1 ? '' : 's'}`).join(', ');
}

/** The text cut at the budget on a character boundary (only a budget below one file's line needs it). */
function fit(text: string, budget: number): string {
  if (bytes(text) <= budget) return text;
  return Buffer.from(text)
    .subarray(0, budget)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
