// A BERT encoder of a published model's shape (layers, width, heads, feed-forward width), written
// as an ONNX graph with seeded random weights, for measuring the `onnx` provider's throughput.
// No trained model can be downloaded here, and a model's cost is its shape, not its weights: the
// same operators on the same tensor sizes as a sentence-transformers export (embeddings, then per
// layer self-attention with the padding mask and a GELU feed-forward, each with its residual and
// layer norm), so chunks per second are what bge-small or all-MiniLM would give. Its vectors mean
// nothing. The tokenizer is the test fixtures' copy of bge's WordPiece, as those models use.

import fs from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { fixtureVocabularySize, writeEncoderFolder } from '../../test/unit/helpers/onnx-model.ts';
import { random } from '../../test/unit/helpers/random.ts';

// A CommonJS package whose exports Node cannot name statically.
const { onnx } = onnxProto;

export interface BertShape {
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
}

/** The shapes of two models people run on a CPU, from their published configurations. */
export const BERT_SHAPES = {
  'all-MiniLM-L6-v2': { layers: 6, hidden: 384, heads: 12, intermediate: 1536 },
  'bge-small-en-v1.5': { layers: 12, hidden: 384, heads: 12, intermediate: 1536 },
} satisfies Record<string, BertShape>;

const MAX_POSITIONS = 512;

/** Writes model.onnx and tokenizer.json into `folder`, once: the folder is kept between runs. */
export function writeBertShapedModel(folder: string, shape: BertShape): void {
  const modelFile = path.join(folder, 'model.onnx');
  if (fs.existsSync(modelFile)) return;
  const vocabularySize = fixtureVocabularySize();
  const { hidden: h, heads, intermediate } = shape;
  const headWidth = h / heads;
  const next = random(shape.layers * 1000 + h);
  const initializer: onnxProto.onnx.ITensorProto[] = [];
  const node: onnxProto.onnx.INodeProto[] = [];
  const floats = (name: string, dims: number[], fill: () => number) => {
    const values = Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, fill);
    initializer.push(onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(values.buffer) }));
    return name;
  };
  // Weights of a trained BERT's scale, so activations stay in the ranges real ones have.
  const weights = (name: string, dims: number[]) => floats(name, dims, () => (next() * 2 - 1) * 0.05);
  const constant = (name: string, value: number) => floats(name, [], () => value);
  /** An int64 tensor: a list, or with `dims` [] a scalar. */
  const longs = (name: string, values: number[], dims = [values.length]) => {
    const data = BigInt64Array.from(values.map(BigInt));
    initializer.push(onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.INT64, rawData: new Uint8Array(data.buffer) }));
    return name;
  };
  const op = (opType: string, input: string[], output: string, attribute: onnxProto.onnx.IAttributeProto[] = []) => {
    node.push({ opType, input, output: [output], attribute });
    return output;
  };
  const layerNorm = (x: string, name: string) =>
    op('LayerNormalization', [x, floats(`${name}.gamma`, [h], () => 1), floats(`${name}.beta`, [h], () => 0)], `${name}.out`, [
      { name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 },
      { name: 'epsilon', type: onnx.AttributeProto.AttributeType.FLOAT, f: 1e-12 },
    ]);
  const dense = (x: string, name: string, from: number, to: number) =>
    op('Add', [op('MatMul', [x, weights(`${name}.weight`, [from, to])], `${name}.mm`), floats(`${name}.bias`, [to], () => 0)], `${name}.out`);

  // Embeddings: word + position + token type, then a layer norm.
  const sequence = op('Gather', [op('Shape', ['input_ids'], 'ids_shape'), longs('sequence_axis', [1], [])], 'sequence_length');
  const positionIds = op('Range', [longs('first_position', [0], []), sequence, longs('position_step', [1], [])], 'position_ids');
  const summed = op(
    'Add',
    [
      op(
        'Add',
        [
          op('Gather', [weights('word_embeddings', [vocabularySize, h]), 'input_ids'], 'words'),
          op('Gather', [weights('position_embeddings', [MAX_POSITIONS, h]), positionIds], 'positions'),
        ],
        'words_positions',
      ),
      op('Gather', [weights('token_type_embeddings', [2, h]), 'token_type_ids'], 'types'),
    ],
    'embedded',
  );
  let x = layerNorm(summed, 'embeddings.norm');

  // The padding mask as an additive bias on every head's scores: 0 where a token is, −10,000 where padding is.
  const mask = op(
    'Unsqueeze',
    [
      op('Cast', ['attention_mask'], 'mask_float', [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: onnx.TensorProto.DataType.FLOAT }]),
      longs('mask_axes', [1, 2]),
    ],
    'mask_4d',
  );
  const bias = op('Mul', [op('Sub', [constant('one', 1), mask], 'mask_inverted'), constant('masked', -10_000)], 'mask_bias');
  const toHeads = longs('to_heads', [0, 0, heads, headWidth]);
  const fromHeads = longs('from_heads', [0, 0, h]);
  const perm = (name: string, order: number[]) => ({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: order });

  for (let l = 0; l < shape.layers; l++) {
    const at = `layer${l}`;
    const split = (name: string, order: number[]) =>
      op('Transpose', [op('Reshape', [dense(x, `${at}.${name}`, h, h), toHeads], `${at}.${name}.heads`)], `${at}.${name}.t`, [perm('perm', order)]);
    const scores = op(
      'Mul',
      [op('MatMul', [split('query', [0, 2, 1, 3]), split('key', [0, 2, 3, 1])], `${at}.qk`), constant(`${at}.scale`, 1 / Math.sqrt(headWidth))],
      `${at}.scaled`,
    );
    const probabilities = op('Softmax', [op('Add', [scores, bias], `${at}.masked`)], `${at}.probabilities`, [
      { name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 },
    ]);
    const context = op(
      'Reshape',
      [
        op('Transpose', [op('MatMul', [probabilities, split('value', [0, 2, 1, 3])], `${at}.context.heads`)], `${at}.context.t`, [perm('perm', [0, 2, 1, 3])]),
        fromHeads,
      ],
      `${at}.context`,
    );
    x = layerNorm(op('Add', [x, dense(context, `${at}.attention.output`, h, h)], `${at}.attention.residual`), `${at}.attention.norm`);
    // GELU as BERT computes it: x · ½ · (1 + erf(x / √2)).
    const up = dense(x, `${at}.intermediate`, h, intermediate);
    const erf = op('Erf', [op('Div', [up, constant(`${at}.sqrt2`, Math.SQRT2)], `${at}.gelu.scaled`)], `${at}.gelu.erf`);
    const gelu = op(
      'Mul',
      [op('Mul', [up, op('Add', [erf, constant(`${at}.gelu.one`, 1)], `${at}.gelu.sum`)], `${at}.gelu.product`), constant(`${at}.gelu.half`, 0.5)],
      `${at}.gelu`,
    );
    x = layerNorm(op('Add', [x, dense(gelu, `${at}.output`, intermediate, h)], `${at}.output.residual`), `${at}.output.norm`);
  }
  node.push({ opType: 'Identity', input: [x], output: ['last_hidden_state'] });
  writeEncoderFolder(folder, { name: 'bert-shaped', node, initializer, width: h });
}
