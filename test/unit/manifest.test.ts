// package.json repeats, for VS Code, what src/core/options.ts declares: the settings with their
// types, defaults and bounds, and the language model tool's input schema. These tests keep the
// two copies from drifting apart.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { z } from 'zod/v4';
import { toolInputJsonSchema } from '../../src/extension/agent-input.ts';
import { SECTION, SETTINGS } from '../../src/extension/settings-parse.ts';

const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  contributes: {
    configuration: { properties: Record<string, Record<string, unknown>> };
    languageModelTools: Array<{ name: string; inputSchema: unknown }>;
  };
};

/** The parts of a setting's JSON schema VS Code checks and shows; descriptions may say more than the schema's one line. */
function checkedParts(schema: Record<string, unknown>): Record<string, unknown> {
  const parts: Record<string, unknown> = {};
  for (const key of ['type', 'default', 'minimum', 'maximum', 'enum', 'items']) {
    // zod bounds every integer by the safe range; that is no bound the manifest needs to repeat.
    if (key === 'maximum' && schema[key] === Number.MAX_SAFE_INTEGER) continue;
    if (schema[key] !== undefined) parts[key] = schema[key];
  }
  return parts;
}

test('every setting in package.json has the type, default and bounds the options schema gives it', () => {
  const declared = manifest.contributes.configuration.properties;
  for (const [key, schema] of Object.entries(SETTINGS)) {
    const entry = declared[`${SECTION}.${key}`];
    assert.ok(entry, `package.json declares ${SECTION}.${key}`);
    assert.deepEqual(checkedParts(entry), checkedParts(z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>), `${SECTION}.${key}`);
  }
});

test('package.json declares no setting the extension does not read', () => {
  const read = Object.keys(SETTINGS)
    .map((key) => `${SECTION}.${key}`)
    .sort();
  assert.deepEqual(Object.keys(manifest.contributes.configuration.properties).sort(), read);
});

test('the language model tool declares to VS Code exactly the input it checks', () => {
  const tool = manifest.contributes.languageModelTools.find((t) => t.name === 'fused_search');
  assert.deepEqual(tool?.inputSchema, toolInputJsonSchema());
});
