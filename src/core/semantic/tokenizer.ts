// A model folder's `tokenizer.json`, read with Hugging Face's tokenizers library, for the providers
// that run a model in-process (static-embedder.ts, onnx-embedder.ts).

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Tokenizer as HuggingFaceTokenizer } from '@huggingface/tokenizers';
import { EmbedderError } from './embedder.ts';

/**
 * The part of the tokenizer the providers use. The package's type files import each other without
 * extensions, which the linter's TypeScript 6 cannot follow under nodenext (tsc 7 can), so the
 * class is bound to this shape once, here.
 */
export interface TextTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
}
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- see TextTokenizer
const Tokenizer: new (spec: object, config: object) => TextTokenizer = HuggingFaceTokenizer;

export interface FolderTokenizer {
  tokenizer: TextTokenizer;
  /** The id of the unknown-word token, if the vocabulary has one. */
  unknownId: number | undefined;
}

/** Reads `<folder>/tokenizer.json`; `who` names the folder in errors. */
export async function loadTokenizer(folder: string, who: string): Promise<FolderTokenizer> {
  const file = path.join(folder, 'tokenizer.json');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new EmbedderError('unavailable', `${who} has no readable tokenizer.json (${error.code ?? error.message}).`);
  });
  try {
    const spec = JSON.parse(text) as { model?: { unk_token?: string } };
    const tokenizer = new Tokenizer(spec, {});
    return { tokenizer, unknownId: spec.model?.unk_token ? tokenizer.token_to_id(spec.model.unk_token) : undefined };
  } catch (error) {
    throw new EmbedderError('unavailable', `${who}: tokenizer.json cannot be read (${(error as Error).message}).`);
  }
}
