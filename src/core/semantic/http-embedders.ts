// Embedding endpoints spoken over HTTP: Ollama's /api/embed and the OpenAI embeddings API, which
// LM Studio, llama.cpp's server, vLLM and Text Embeddings Inference speak too. Both share one
// request loop: a timeout per attempt, retries with backoff on 429 and 5xx (honouring
// Retry-After), and no retry for what waiting cannot fix (a refused key, a missing model).

import { DEFAULT_BATCH_SIZE, EmbedderError, checkedVectors, type Embedder, type EmbedderConfig } from './embedder.ts';

const DEFAULT_TIMEOUT_MS = 30_000;
const ATTEMPTS = 4;
const FIRST_BACKOFF_MS = 500;
/** A Retry-After longer than this is not waited for: the lane gives up and says the endpoint is busy. */
const MAX_RETRY_AFTER_MS = 10_000;

export const OLLAMA_DEFAULT_ENDPOINT = 'http://127.0.0.1:11434';
export const OPENAI_DEFAULT_ENDPOINT = 'https://api.openai.com/v1';

interface Wire {
  who: string;
  url: string;
  body: (texts: readonly string[]) => unknown;
  /** The vectors in the answer's JSON, in input order. */
  vectors: (answer: unknown) => unknown;
}

/** Ollama: `POST /api/embed {model, input}` → `{embeddings}`. */
export function ollamaEmbedder(config: EmbedderConfig): Embedder {
  const base = (config.endpoint ?? OLLAMA_DEFAULT_ENDPOINT).replace(/\/+$/, '');
  return httpEmbedder(config, {
    who: `Ollama at ${base}`,
    url: `${base}/api/embed`,
    body: (input) => ({ model: config.model, input, truncate: true, ...(config.dimensions ? { dimensions: config.dimensions } : {}) }),
    vectors: (answer) => (answer as { embeddings?: unknown }).embeddings,
  });
}

/** OpenAI-compatible: `POST <base>/embeddings {model, input}` → `{data: [{index, embedding}]}`; the base URL ends in `/v1`. */
export function openAiEmbedder(config: EmbedderConfig): Embedder {
  const base = (config.endpoint ?? OPENAI_DEFAULT_ENDPOINT).replace(/\/+$/, '');
  return httpEmbedder(config, {
    who: `the embeddings endpoint at ${base}`,
    url: `${base}/embeddings`,
    body: (input) => ({ model: config.model, input, encoding_format: 'float', ...(config.dimensions ? { dimensions: config.dimensions } : {}) }),
    vectors: (answer) => {
      const data = (answer as { data?: Array<{ index?: number; embedding?: unknown }> }).data;
      return Array.isArray(data) ? [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((item) => item.embedding) : undefined;
    },
  });
}

function httpEmbedder(config: EmbedderConfig, wire: Wire): Embedder {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  return {
    modelId: `${config.provider}:${config.model}${config.dimensions ? `@${config.dimensions}` : ''}`,
    batchSize: config.batchSize ?? DEFAULT_BATCH_SIZE,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const body = JSON.stringify(wire.body(texts));
      for (let attempt = 1; ; attempt++) {
        const outcome = await post(wire, headers, body, timeoutMs, signal, config.apiKey);
        if (outcome.ok) return checkedVectors(wire.vectors(outcome.answer), texts.length, config.dimensions, wire.who);
        if (!outcome.retry || attempt === ATTEMPTS) throw outcome.error;
        const backoff = outcome.retryAfterMs ?? FIRST_BACKOFF_MS * 2 ** (attempt - 1);
        if (backoff > MAX_RETRY_AFTER_MS) throw outcome.error;
        // Cancelled while waiting to retry: what made it retry is the news, not the cancel.
        await sleep(backoff, signal).catch(() => {
          throw outcome.error;
        });
      }
    },
  };
}

type Outcome = { ok: true; answer: unknown } | { ok: false; error: EmbedderError; retry: boolean; retryAfterMs?: number };

async function post(
  wire: Wire,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  apiKey: string | undefined,
): Promise<Outcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(wire.url, { method: 'POST', headers, body, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (error) {
    if (signal?.aborted) throw new EmbedderError('aborted', 'Embedding was cancelled.');
    if (timeout.aborted) return { ok: false, retry: true, error: new EmbedderError('timeout', `${wire.who} did not answer within ${timeoutMs / 1000} s.`) };
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { ok: false, retry: true, error: new EmbedderError('unavailable', `${wire.who} cannot be reached (${cause}): is it running?`) };
  }
  const text = await response.text().catch(() => '');
  // Cancelled while the body was arriving: a slow answer, not a broken one.
  if (signal?.aborted) throw new EmbedderError('aborted', 'Embedding was cancelled.');
  if (response.ok) {
    try {
      return { ok: true, answer: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, retry: false, error: new EmbedderError('bad-answer', `${wire.who} answered something that is not JSON.`) };
    }
  }
  // Some servers quote the key they refused.
  const said = apiKey ? serverMessage(text).replaceAll(apiKey, '[key]') : serverMessage(text);
  const status = `HTTP ${response.status}${said ? `: ${said}` : ''}`;
  if (response.status === 401 || response.status === 403) {
    return { ok: false, retry: false, error: new EmbedderError('auth', `${wire.who} refused the API key (${status}).`) };
  }
  if (response.status === 429 || response.status >= 500) {
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      ok: false,
      retry: true,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
      error: new EmbedderError('busy', `${wire.who} is busy or failing (${status}); the lane retries later.`),
    };
  }
  return { ok: false, retry: false, error: new EmbedderError('unavailable', `${wire.who} did not embed (${status}): check the model name.`) };
}

/** The `error` an endpoint put in its JSON answer, if any, shortened: enough to name the problem. */
function serverMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: string | { message?: string } };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    return (message ?? '').slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new EmbedderError('aborted', 'Embedding was cancelled.'));
      },
      { once: true },
    );
  });
}
