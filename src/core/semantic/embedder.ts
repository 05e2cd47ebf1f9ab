// An embedding model behind one interface, whatever runs it: a local Ollama, any OpenAI-compatible
// /v1/embeddings endpoint, a model2vec folder or an ONNX model folder run in-process. The semantic lane (lane.ts)
// asks for vectors in batches and never learns which provider answered.
//
// Failures are one error class with a kind, so the lane can tell "the model is not there"
// (skip, say why) from "slow down" (retry with backoff): every message is a sentence a user can act
// on, and never holds the API key.

export type EmbedderProvider = 'ollama' | 'openai' | 'static' | 'onnx';

export interface EmbedderConfig {
  provider: EmbedderProvider;
  /** The model's name at the endpoint (`nomic-embed-text`), or for `static` and `onnx` its folder. */
  model: string;
  /** Base URL of the endpoint; each provider has its usual local default. */
  endpoint?: string;
  /** Sent as a bearer token (`openai`); read from the environment or VS Code's SecretStorage, never from settings. */
  apiKey?: string;
  /** Ask the endpoint for vectors of this size (models that can shorten them), and check every answer has it. */
  dimensions?: number;
  /** Texts per request. */
  batchSize?: number;
  /** How long one request may take before it is retried, in milliseconds. */
  timeoutMs?: number;
}

export interface Embedder {
  /**
   * Names the vectors this embedder makes: provider, model and dimensions. Vectors are stored
   * under it, so a different model (or size) never mixes with them.
   */
  readonly modelId: string;
  /** Texts per call of `embed` that the provider handles well. */
  readonly batchSize: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/**
 * Why embedding failed. `unavailable`: the endpoint or model folder cannot be reached or read;
 * `auth`: the key was refused; `busy`: rate limited or overloaded past every retry; `timeout`;
 * `bad-answer`: vectors of the wrong size, or not numbers; `aborted`: the caller cancelled.
 */
export type EmbedderErrorKind = 'unavailable' | 'auth' | 'busy' | 'timeout' | 'bad-answer' | 'aborted';

export class EmbedderError extends Error {
  readonly kind: EmbedderErrorKind;
  constructor(kind: EmbedderErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}

export const DEFAULT_BATCH_SIZE = 32;

/** Where the CLI and the MCP server read an endpoint's API key: never a flag, which shell history and `ps` would keep. */
export const EMBED_API_KEY_ENV = 'FUSED_SEARCH_EMBED_API_KEY';

/**
 * Checks an answer's vectors and makes them unit length, so that a dot product is the cosine:
 * some endpoints normalise, others do not, and a stored vector must not depend on which.
 */
export function checkedVectors(raw: unknown, expected: number, dimensions: number | undefined, who: string): Float32Array[] {
  if (!Array.isArray(raw) || raw.length !== expected) {
    throw new EmbedderError('bad-answer', `${who} answered ${Array.isArray(raw) ? raw.length : 'no'} vectors for ${expected} texts.`);
  }
  const size = dimensions ?? (raw[0] as unknown[] | undefined)?.length;
  return raw.map((vector: unknown) => {
    if (!Array.isArray(vector) || vector.length !== size || size === 0) {
      throw new EmbedderError(
        'bad-answer',
        `${who} answered a vector of ${Array.isArray(vector) ? vector.length : 'no'} dimensions where ${size} were expected: check the model and the dimensions setting.`,
      );
    }
    // JSON has no NaN: a server's serialiser writes it as null, which Float32Array would read as 0.
    if (!vector.every((value) => typeof value === 'number')) {
      throw new EmbedderError('bad-answer', `${who} answered a vector that is not all numbers (null, NaN or text values).`);
    }
    return normalized(Float32Array.from(vector), who);
  });
}

/** The vector scaled to unit length; a zero vector (text with no known token) stays zero. */
export function normalized(vector: Float32Array, who: string): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (!Number.isFinite(sum)) throw new EmbedderError('bad-answer', `${who} answered a vector that is not all numbers (NaN or infinite values).`);
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return vector;
}
