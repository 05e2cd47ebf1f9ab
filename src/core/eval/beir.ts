// Reads a dataset in the BEIR layout: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Judgments } from './metrics.ts';

export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  id: string;
  text: string;
}

export interface BeirDataset {
  name: string;
  documents: BeirDocument[];
  queries: BeirQuery[];
  /** Query id → judged documents. Only queries with judgments are evaluated. */
  qrels: Map<string, Judgments>;
}

export async function loadBeir(dir: string, options: { split?: string; queriesFile?: string } = {}): Promise<BeirDataset> {
  const split = options.split ?? 'test';
  const qrelsFile = path.join(dir, 'qrels', `${split}.tsv`);
  if (!fs.existsSync(qrelsFile)) throw new Error(`no judgments for split "${split}": ${qrelsFile} does not exist`);
  const documents: BeirDocument[] = [];
  for await (const row of jsonLines(path.join(dir, 'corpus.jsonl'))) {
    documents.push({ id: String(row._id), title: text(row.title), text: text(row.text) });
  }
  const qrels = new Map<string, Judgments>();
  const lines = fs.readFileSync(qrelsFile, 'utf8').split('\n');
  for (const line of lines.slice(1)) {
    const [query, doc, grade] = line.trim().split('\t');
    if (!query || !doc || grade === undefined) continue;
    let judged = qrels.get(query);
    if (!judged) qrels.set(query, (judged = new Map<string, number>()));
    judged.set(doc, Number(grade));
  }
  const queries: BeirQuery[] = [];
  for await (const row of jsonLines(options.queriesFile ?? path.join(dir, 'queries.jsonl'))) {
    const id = String(row._id);
    if (qrels.has(id)) queries.push({ id, text: text(row.text) });
  }
  return { name: path.basename(path.resolve(dir)), documents, queries, qrels };
}

/** A text field of a JSON line; a missing one, null or anything but a string or number is empty, not "[object Object]". */
function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

async function* jsonLines(file: string): AsyncGenerator<Record<string, unknown>> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
}
