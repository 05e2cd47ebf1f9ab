import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Vocabulary } from '../../src/core/search/fuzzy.ts';

// A kernel-sized vocabulary: 1.5 million words, most of them single-document noise (hex constants
// and identifiers), with a few real words planted among them. Only the answers are asserted here;
// bench/fuzzy-speed.ts is where the time is measured.
test('corrections still come back right from a 1.5-million-word vocabulary', () => {
  const words: string[] = [];
  const docFreq: number[] = [];
  let seed = 12345;
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  for (let i = 0; i < 1_500_000; i++) {
    const r = next();
    words.push(i % 3 === 0 ? `0x${i.toString(16).padStart(8, '0')}` : `id_${i.toString(36)}_${(r % 997).toString(36)}`);
    // Roughly three in four words occur in a single document, as in the kernel.
    docFreq.push(r % 4 === 0 ? 2 + (r % 50) : 1);
  }
  words.push('interrupt', 'interrupts', 'spinlock', 'mutex_lock');
  docFreq.push(900, 400, 700, 800);

  const v = new Vocabulary(words, docFreq);
  assert.equal(v.size, 1_500_004);
  assert.deepEqual(v.correct('interupt'), { from: 'interupt', to: 'interrupt', distance: 1 });
  assert.deepEqual(v.correct('spinlcok'), { from: 'spinlcok', to: 'spinlock', distance: 1 });
  assert.deepEqual(v.correct('mutx_lokc'), { from: 'mutx_lokc', to: 'mutex_lock', distance: 2 });
  assert.equal(v.correct('interrupts'), null);
  assert.equal(v.correct('zzqqxxvvkk'), null);
});
