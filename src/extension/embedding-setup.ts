// "Fused Search: Choose Embedding Model…": pick a provider, name the model, give an endpoint's key,
// and see it answer before anything is saved. The key goes to VS Code's SecretStorage, filed under
// the endpoint it was given for, so it is never sent anywhere else, and never to settings or logs.

import * as vscode from 'vscode';
import { EmbedderError, type EmbedderConfig, type EmbedderProvider } from '../core/semantic/embedder.ts';
import { OLLAMA_DEFAULT_ENDPOINT, OPENAI_DEFAULT_ENDPOINT } from '../core/semantic/http-embedders.ts';
import { createEmbedder } from '../core/semantic/providers.ts';
import { errorMessage } from '../core/error-message.ts';
import { SECTION } from './settings.ts';

/** How long the test embedding may take: a cold Ollama loads its model first. */
const TEST_TIMEOUT_MS = 30_000;

/** Where an OpenAI-compatible endpoint's key is kept in SecretStorage. */
export function apiKeyName(endpoint: string | undefined): string {
  return `${SECTION}.semantic.apiKey ${(endpoint ?? OPENAI_DEFAULT_ENDPOINT).replace(/\/+$/, '')}`;
}

/** The key saved for this configuration's endpoint, if it is one that takes a key. */
export async function apiKeyFor(secrets: vscode.SecretStorage, config: Omit<EmbedderConfig, 'apiKey'>): Promise<string | undefined> {
  return config.provider === 'openai' ? secrets.get(apiKeyName(config.endpoint)) : undefined;
}

interface ProviderItem extends vscode.QuickPickItem {
  provider: EmbedderProvider | 'off';
}

const PROVIDERS: ProviderItem[] = [
  { provider: 'ollama', label: 'Ollama', detail: `A local Ollama (${OLLAMA_DEFAULT_ENDPOINT}), e.g. nomic-embed-text` },
  { provider: 'openai', label: 'OpenAI-compatible endpoint', detail: 'OpenAI, LM Studio, llama.cpp server, vLLM, Text Embeddings Inference' },
  { provider: 'static', label: 'model2vec folder', detail: 'model.safetensors + tokenizer.json on disk (e.g. potion-base-8M), run in-process' },
  { provider: 'onnx', label: 'ONNX model folder', detail: 'model.onnx + tokenizer.json on disk (e.g. bge-small, all-MiniLM, jina-code), run on the CPU' },
  { provider: 'off', label: 'Off', detail: 'No semantic lane: the lexical lists answer alone' },
];

export async function chooseEmbeddingModel(secrets: vscode.SecretStorage, log: vscode.LogOutputChannel): Promise<void> {
  const picked = await vscode.window.showQuickPick(PROVIDERS, { title: 'Fused Search: embedding model for the semantic lane' });
  if (!picked) return;
  const settings = vscode.workspace.getConfiguration(SECTION);
  if (picked.provider === 'off') {
    await settings.update('semantic.provider', 'off', vscode.ConfigurationTarget.Global);
    return;
  }
  const config = await askConfig(picked.provider, secrets);
  if (!config) return;

  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Fused Search: asking ${config.model} for a vector…`, cancellable: true },
    (_progress, token) => testEmbedder(config, token),
  );
  if (outcome.ok) {
    void vscode.window.showInformationMessage(`Fused Search: ${config.model} answered a ${outcome.dimensions}-dimension vector in ${outcome.ms} ms.`);
  } else {
    log.warn(`embedding model test failed: ${outcome.message}`);
    const choice = await vscode.window.showWarningMessage(`Fused Search: ${outcome.message}`, 'Save Anyway', 'Cancel');
    if (choice !== 'Save Anyway') return;
  }
  // User settings: a workspace cannot choose where its text is embedded (see RESTRICTED_KEYS).
  await settings.update('semantic.model', config.model, vscode.ConfigurationTarget.Global);
  await settings.update('semantic.endpoint', config.endpoint ?? '', vscode.ConfigurationTarget.Global);
  await settings.update('semantic.provider', config.provider, vscode.ConfigurationTarget.Global);
}

async function askConfig(provider: EmbedderProvider, secrets: vscode.SecretStorage): Promise<EmbedderConfig | undefined> {
  if (provider === 'static' || provider === 'onnx') {
    const [folder] =
      (await vscode.window.showOpenDialog({
        canSelectFolders: true,
        canSelectFiles: false,
        openLabel: 'Use This Model Folder',
        title: provider === 'static' ? 'A model2vec folder' : 'An ONNX model folder',
      })) ?? [];
    return folder && { provider, model: folder.fsPath };
  }
  const defaultEndpoint = provider === 'ollama' ? OLLAMA_DEFAULT_ENDPOINT : OPENAI_DEFAULT_ENDPOINT;
  const endpoint = await vscode.window.showInputBox({
    title: 'Endpoint',
    prompt: provider === 'openai' ? 'Base URL, ending in /v1' : "Ollama's URL",
    value: defaultEndpoint,
    validateInput: (value) => (URL.canParse(value) ? undefined : 'Not a URL'),
  });
  if (!endpoint) return undefined;
  const model = await vscode.window.showInputBox({
    title: 'Model',
    prompt: "The model's name at the endpoint",
    value: provider === 'ollama' ? 'nomic-embed-text' : 'text-embedding-3-small',
  });
  if (!model?.trim()) return undefined;
  const config: EmbedderConfig = { provider, model: model.trim(), ...(endpoint === defaultEndpoint ? {} : { endpoint }) };
  if (provider !== 'openai') return config;
  const saved = await secrets.get(apiKeyName(config.endpoint));
  const key = await vscode.window.showInputBox({
    title: 'API key',
    prompt: saved
      ? 'Kept in secret storage; leave it as it is, or paste a new one (empty: none)'
      : 'Kept in secret storage (empty: none, as local servers need)',
    password: true,
    value: saved ?? '',
  });
  if (key === undefined) return undefined;
  if (key) await secrets.store(apiKeyName(config.endpoint), key);
  else await secrets.delete(apiKeyName(config.endpoint));
  return key ? { ...config, apiKey: key } : config;
}

type TestOutcome = { ok: true; dimensions: number; ms: number } | { ok: false; message: string };

async function testEmbedder(config: EmbedderConfig, token: vscode.CancellationToken): Promise<TestOutcome> {
  const stop = new AbortController();
  token.onCancellationRequested(() => stop.abort());
  const started = performance.now();
  try {
    const embedder = await createEmbedder({ ...config, timeoutMs: TEST_TIMEOUT_MS });
    const [vector] = await embedder.embed(['Where do we retry failed requests?'], stop.signal);
    return { ok: true, dimensions: vector?.length ?? 0, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, message: error instanceof EmbedderError && error.kind === 'aborted' ? 'The test was cancelled.' : errorMessage(error) };
  }
}
