// A model2vec / static-embedding model read from its folder (`model.safetensors`, `tokenizer.json`,
// `config.json`), run in-process: a text's vector is the mean of its tokens' rows, each row scaled
// by the model's per-token weight when it has one, then normalised. No runtime beyond the
// tokenizer, so it embeds thousands of chunks a second on one core.
//
// The file layout is model2vec's: an `embeddings` tensor (F32, F16 or I8), optionally `weights`
// (one scale per token) and `mapping` (token id → embedding row, for vocabulary-quantised models).

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_BATCH_SIZE, EmbedderError, normalized, type Embedder, type EmbedderConfig } from './embedder.ts';
import { loadTokenizer } from './tokenizer.ts';

/** Tokens of one text that count: model2vec's own default. A chunk is capped at a few KB anyway. */
const MAX_TOKENS = 512;

interface Tensor {
  dtype: string;
  shape: number[];
  data: Uint8Array;
}

export async function staticEmbedder(config: EmbedderConfig): Promise<Embedder> {
  const folder = config.model;
  const who = `the model folder ${folder}`;
  const [modelBytes, configJson] = await Promise.all(
    ['model.safetensors', 'config.json'].map((name) =>
      readFile(path.join(folder, name)).catch((error: NodeJS.ErrnoException) => {
        if (name === 'config.json' && error.code === 'ENOENT') return undefined;
        throw new EmbedderError('unavailable', `${who} has no readable ${name} (${error.code ?? error.message}).`);
      }),
    ),
  );
  const tensors = parseSafetensors(modelBytes!, who);
  const table = tensors.get('embeddings') ?? tensors.get('0') ?? tensors.get('embedding.weight');
  if (!table || table.shape.length !== 2) throw new EmbedderError('unavailable', `${who}: model.safetensors holds no 2-D embeddings tensor.`);
  const [rows, dimensions] = table.shape as [number, number];
  const embeddings = floats(table, who);
  const weights = tensors.has('weights') ? floats(tensors.get('weights')!, who) : undefined;
  const mapping = tensors.has('mapping') ? integers(tensors.get('mapping')!, who) : undefined;
  const { tokenizer, unknownId } = await loadTokenizer(folder, who);
  let normalize = true;
  try {
    if (configJson) normalize = (JSON.parse(configJson.toString('utf8')) as { normalize?: boolean }).normalize ?? true;
  } catch (error) {
    throw new EmbedderError('unavailable', `${who}: config.json cannot be read (${(error as Error).message}).`);
  }
  if (config.dimensions !== undefined && config.dimensions !== dimensions) {
    throw new EmbedderError('bad-answer', `${who} makes vectors of ${dimensions} dimensions, not the ${config.dimensions} configured.`);
  }

  const embedOne = (text: string): Float32Array => {
    const sum = new Float32Array(dimensions);
    let count = 0;
    for (const id of tokenizer.encode(text, { add_special_tokens: false }).ids) {
      if (id === unknownId) continue;
      const row = mapping ? mapping[id] : id;
      if (row === undefined || row >= rows) continue;
      const scale = weights?.[id] ?? 1;
      const offset = row * dimensions;
      for (let d = 0; d < dimensions; d++) sum[d]! += embeddings[offset + d]! * scale;
      if (++count === MAX_TOKENS) break;
    }
    if (count > 0) for (let d = 0; d < dimensions; d++) sum[d]! /= count;
    return normalize ? normalized(sum, who) : sum;
  };

  return {
    modelId: `static:${path.basename(path.resolve(folder))}@${dimensions}`,
    batchSize: config.batchSize ?? DEFAULT_BATCH_SIZE,
    embed(texts, signal) {
      if (signal?.aborted) return Promise.reject(new EmbedderError('aborted', 'Embedding was cancelled.'));
      return Promise.resolve(texts.map(embedOne));
    },
  };
}

/** The safetensors container: an 8-byte little-endian header length, a JSON header, the tensors' bytes. */
function parseSafetensors(bytes: Buffer, who: string): Map<string, Tensor> {
  const broken = (why: string) => new EmbedderError('unavailable', `${who}: model.safetensors is not a safetensors file (${why}).`);
  if (bytes.length < 8) throw broken('too short');
  const headerLength = Number(bytes.readBigUInt64LE(0));
  if (headerLength <= 0 || 8 + headerLength > bytes.length) throw broken('bad header length');
  let header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  try {
    header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as typeof header;
  } catch {
    throw broken('unreadable header');
  }
  const start = 8 + headerLength;
  const tensors = new Map<string, Tensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [from, to] = entry.data_offsets;
    if (start + to > bytes.length || from > to) throw broken(`tensor ${name} lies outside the file`);
    tensors.set(name, { dtype: entry.dtype, shape: entry.shape, data: bytes.subarray(start + from, start + to) });
  }
  return tensors;
}

function floats(tensor: Tensor, who: string): Float32Array {
  const { data, dtype } = tensor;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  switch (dtype) {
    case 'F32':
      return Float32Array.from({ length: data.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
    case 'F64':
      return Float32Array.from({ length: data.byteLength / 8 }, (_, i) => view.getFloat64(i * 8, true));
    case 'F16':
      return Float32Array.from({ length: data.byteLength / 2 }, (_, i) => halfToFloat(view.getUint16(i * 2, true)));
    case 'I8':
      return Float32Array.from({ length: data.byteLength }, (_, i) => view.getInt8(i));
    default:
      throw new EmbedderError('unavailable', `${who}: tensors of type ${dtype} are not supported.`);
  }
}

function integers(tensor: Tensor, who: string): Int32Array {
  const { data, dtype } = tensor;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (dtype === 'I32') return Int32Array.from({ length: data.byteLength / 4 }, (_, i) => view.getInt32(i * 4, true));
  if (dtype === 'I64') return Int32Array.from({ length: data.byteLength / 8 }, (_, i) => Number(view.getBigInt64(i * 8, true)));
  throw new EmbedderError('unavailable', `${who}: a token mapping of type ${dtype} is not supported.`);
}

/** IEEE 754 half precision to a number (DataView.getFloat16 is newer than some Electrons VS Code ships). */
function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
