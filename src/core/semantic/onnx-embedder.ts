// A transformer embedding model exported to ONNX, read from its folder (`model.onnx` or
// `onnx/model.onnx`, `tokenizer.json`), run in-process with onnxruntime-node on the CPU: bge-small,
// all-MiniLM, jina-code and the like. Pooling follows the folder's sentence-transformers
// configuration (`1_Pooling/config.json`: the [CLS] token or the mean of the tokens the attention
// mask keeps; mean when the folder does not say), then every vector is normalised.
//
// onnxruntime is imported only when this provider is chosen: its native library is large, and
// most users of the lane use a server or a static model.

import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_BATCH_SIZE, EmbedderError, normalized, type Embedder, type EmbedderConfig } from './embedder.ts';
import { loadTokenizer } from './tokenizer.ts';

/** Tokens of one text the model sees; what BERT-sized models were trained on. */
const MAX_TOKENS = 512;
/**
 * Texts the model runs at once. Each is padded to the longest of its run, and padding costs what
 * tokens do, so a batch runs as groups of texts of similar lengths (bench:embed-speed).
 */
const RUN_SIZE = 8;
/** The outputs that hold one vector per token, by the names exporters give them. */
const TOKEN_OUTPUTS = ['last_hidden_state', 'token_embeddings'];

type Pooling = 'mean' | 'cls';

export async function onnxEmbedder(config: EmbedderConfig): Promise<Embedder> {
  const folder = config.model;
  const who = `the model folder ${folder}`;
  const modelFile = await firstReadable([path.join(folder, 'model.onnx'), path.join(folder, 'onnx', 'model.onnx')]);
  if (!modelFile) throw new EmbedderError('unavailable', `${who} has no model.onnx (nor onnx/model.onnx).`);
  const { tokenizer } = await loadTokenizer(folder, who);
  const pooling = await poolingOf(folder);
  // onnxruntime's own telemetry would upload usage events and leave session files in the temp
  // folder; nothing of the user's leaves the machine through the lane unless they chose an endpoint.
  process.env.ORT_DISABLE_TELEMETRY = '1';
  const ort = await import('onnxruntime-node');
  let session: Awaited<ReturnType<typeof ort.InferenceSession.create>>;
  try {
    // One thread: the lane embeds beside indexing and searching, and must stay out of their way.
    session = await ort.InferenceSession.create(modelFile, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  } catch (error) {
    throw new EmbedderError('unavailable', `${who}: model.onnx cannot be loaded (${(error as Error).message}).`);
  }
  const output = TOKEN_OUTPUTS.find((name) => session.outputNames.includes(name)) ?? session.outputNames[0]!;
  const wantsTypes = session.inputNames.includes('token_type_ids');
  let dimensions: number | undefined = config.dimensions;

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((text) => {
      const ids = tokenizer.encode(text, { add_special_tokens: true }).ids;
      // Cut in the middle, keeping the closing special token the model expects last.
      return ids.length > MAX_TOKENS ? [...ids.slice(0, MAX_TOKENS - 1), ids.at(-1)!] : ids;
    });
    const byLength = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const vectors: Float32Array[] = [];
    for (let from = 0; from < byLength.length; from += RUN_SIZE) {
      const run = byLength.slice(from, from + RUN_SIZE);
      const pooled = await embedRun(run.map((i) => encoded[i]!));
      run.forEach((i, k) => (vectors[i] = pooled[k]!));
    }
    return vectors;
  };

  /** One run of the model over token ids, padded to the longest; their pooled, normalised vectors. */
  const embedRun = async (encoded: ReadonlyArray<readonly number[]>): Promise<Float32Array[]> => {
    const length = Math.max(1, ...encoded.map((ids) => ids.length));
    const shape = [encoded.length, length];
    const ids = new BigInt64Array(encoded.length * length);
    const mask = new BigInt64Array(encoded.length * length);
    encoded.forEach((row, b) =>
      row.forEach((id, t) => {
        ids[b * length + t] = BigInt(id);
        mask[b * length + t] = 1n;
      }),
    );
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
      input_ids: new ort.Tensor('int64', ids, shape),
      attention_mask: new ort.Tensor('int64', mask, shape),
      ...(wantsTypes ? { token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), shape) } : {}),
    };
    let result: Awaited<ReturnType<typeof session.run>>;
    try {
      result = await session.run(feeds);
    } catch (error) {
      throw new EmbedderError('bad-answer', `${who}: the model did not run (${(error as Error).message}).`);
    }
    const hidden = result[output]!;
    const data = hidden.data as Float32Array;
    const [, , width] = hidden.dims as [number, number, number];
    if (hidden.dims.length !== 3 || !width) throw new EmbedderError('bad-answer', `${who}: output ${output} is not one vector per token.`);
    if (dimensions !== undefined && width !== dimensions) {
      throw new EmbedderError('bad-answer', `${who} makes vectors of ${width} dimensions, not the ${dimensions} configured.`);
    }
    dimensions = width;
    return encoded.map((row, b) => {
      const vector = new Float32Array(width);
      const tokens = pooling === 'cls' ? 1 : row.length;
      for (let t = 0; t < tokens; t++) {
        const offset = (b * length + t) * width;
        for (let d = 0; d < width; d++) vector[d]! += data[offset + d]!;
      }
      for (let d = 0; d < width; d++) vector[d]! /= tokens;
      return normalized(vector, who);
    });
  };

  return {
    modelId: `onnx:${path.basename(path.resolve(folder))}${config.dimensions ? `@${config.dimensions}` : ''}`,
    batchSize: config.batchSize ?? DEFAULT_BATCH_SIZE,
    async embed(texts, signal) {
      if (signal?.aborted) throw new EmbedderError('aborted', 'Embedding was cancelled.');
      return texts.length === 0 ? [] : embedBatch(texts);
    },
  };
}

/** sentence-transformers' pooling choice for the folder; mean when it does not say. */
async function poolingOf(folder: string): Promise<Pooling> {
  try {
    const pooling = JSON.parse(await readFile(path.join(folder, '1_Pooling', 'config.json'), 'utf8')) as { pooling_mode_cls_token?: boolean };
    return pooling.pooling_mode_cls_token ? 'cls' : 'mean';
  } catch {
    return 'mean';
  }
}

async function firstReadable(files: readonly string[]): Promise<string | undefined> {
  for (const file of files)
    if (
      await access(file, constants.R_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  return undefined;
}
