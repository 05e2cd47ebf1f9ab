// From a provider's configuration to a running embedder. Kept apart from embedder.ts so that the
// interface does not import every implementation of it.

import type { Embedder, EmbedderConfig } from './embedder.ts';
import { ollamaEmbedder, openAiEmbedder } from './http-embedders.ts';
import { onnxEmbedder } from './onnx-embedder.ts';
import { staticEmbedder } from './static-embedder.ts';

/** Reads a `static` or `onnx` model folder (failing with EmbedderError when it is missing or broken); the HTTP providers connect on first use. */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  switch (config.provider) {
    case 'ollama':
      return ollamaEmbedder(config);
    case 'openai':
      return openAiEmbedder(config);
    case 'static':
      return staticEmbedder(config);
    case 'onnx':
      return onnxEmbedder(config);
  }
}
