// A small transformer-shaped embedding model, built here as an ONNX graph, for the `onnx`
// provider's tests: token embeddings looked up by id, one dense layer with tanh, one vector per
// token out as `last_hidden_state` (what a BERT export gives). Its weights come from a seeded
// generator, so a test can compute the same pooling independently and compare. The tokenizer is
// model2vec's fixture copy of bge-base's (WordPiece, [CLS] … [SEP]).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';
import { random } from './random.ts';

// A CommonJS package whose exports Node cannot name statically.
const { onnx } = onnxProto;

export const ONNX_DIMENSIONS = 8;
const TOKENIZER = fileURLToPath(new URL('../../fixtures/model2vec/float32/tokenizer.json', import.meta.url));

export interface OnnxTestModel {
  /** vocabulary × dimensions, row-major. */
  embeddings: Float32Array;
  /** dimensions × dimensions, row-major: hidden = tanh(embedding · dense). */
  dense: Float32Array;
}

/** Writes model.onnx and tokenizer.json (and, for `cls`, a sentence-transformers pooling config) into `folder`. */
export function writeOnnxModel(folder: string, options: { pooling?: 'mean' | 'cls'; seed?: number } = {}): OnnxTestModel {
  const size = fixtureVocabularySize();
  const next = random(options.seed ?? 7);
  const embeddings = Float32Array.from({ length: size * ONNX_DIMENSIONS }, () => next() * 2 - 1);
  const dense = Float32Array.from({ length: ONNX_DIMENSIONS * ONNX_DIMENSIONS }, () => next() - 0.5);
  const tensor = (name: string, dims: number[], values: Float32Array) =>
    onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(values.buffer) });
  writeEncoderFolder(folder, {
    name: 'tiny-encoder',
    // The mask only matters to pooling here, as in most exports' outputs.
    node: [
      { opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['looked_up'] },
      { opType: 'MatMul', input: ['looked_up', 'dense'], output: ['projected'] },
      { opType: 'Tanh', input: ['projected'], output: ['last_hidden_state'] },
    ],
    initializer: [tensor('embeddings', [size, ONNX_DIMENSIONS], embeddings), tensor('dense', [ONNX_DIMENSIONS, ONNX_DIMENSIONS], dense)],
    width: ONNX_DIMENSIONS,
  });
  if (options.pooling === 'cls') {
    fs.mkdirSync(path.join(folder, '1_Pooling'));
    fs.writeFileSync(path.join(folder, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }));
  }
  return { embeddings, dense };
}

/** Token ids the fixtures' tokenizer gives, 0 to this size − 1. */
export function fixtureVocabularySize(): number {
  const vocabulary = (JSON.parse(fs.readFileSync(TOKENIZER, 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  return Math.max(...Object.values(vocabulary)) + 1;
}

/**
 * Writes a model folder as the provider meets a BERT export: a graph reading int64 `input_ids`,
 * `attention_mask` and `token_type_ids` ([batch, sequence]) and writing `last_hidden_state`
 * ([batch, sequence, width]), opset 17, beside the fixtures' tokenizer (bge's WordPiece).
 */
export function writeEncoderFolder(
  folder: string,
  graph: { name: string; node: onnxProto.onnx.INodeProto[]; initializer: onnxProto.onnx.ITensorProto[]; width: number },
): void {
  const ids = (name: string) =>
    onnx.ValueInfoProto.create({
      name,
      type: { tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }] } } },
    });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'fused-search',
    graph: {
      name: graph.name,
      node: graph.node,
      initializer: graph.initializer,
      input: [ids('input_ids'), ids('attention_mask'), ids('token_type_ids')],
      output: [
        onnx.ValueInfoProto.create({
          name: 'last_hidden_state',
          type: {
            tensorType: {
              elemType: onnx.TensorProto.DataType.FLOAT,
              shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }, { dimValue: graph.width }] },
            },
          },
        }),
      ],
    },
  });
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(TOKENIZER, path.join(folder, 'tokenizer.json'));
  fs.writeFileSync(path.join(folder, 'model.onnx'), onnx.ModelProto.encode(model).finish());
}

/** The model's pooled, normalised vector for token ids, computed without onnxruntime. */
export function expectedVector(model: OnnxTestModel, tokenIds: readonly number[], pooling: 'mean' | 'cls'): number[] {
  const d = ONNX_DIMENSIONS;
  const hidden = tokenIds.map((id) =>
    Array.from({ length: d }, (_, j) =>
      Math.tanh(Array.from({ length: d }, (_, k) => model.embeddings[id * d + k]! * model.dense[k * d + j]!).reduce((a, b) => a + b, 0)),
    ),
  );
  const used = pooling === 'cls' ? hidden.slice(0, 1) : hidden;
  const pooled = Array.from({ length: d }, (_, j) => used.reduce((sum, row) => sum + row[j]!, 0) / used.length);
  const norm = Math.hypot(...pooled);
  return pooled.map((v) => v / norm);
}
