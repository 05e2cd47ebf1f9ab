import { test } from 'node:test';
import assert from 'node:assert/strict';
import { search } from '../../src/core/search/pipeline.ts';
import type { SearchResult } from '../../src/core/types.ts';
import type { IndexStore } from '../../src/core/store/store.ts';
import { describeAsText } from '../../src/core/describe.ts';
import { contextFor, storeWith } from './helpers/store.ts';

const filler = (n: number, word = 'lorem') => Array.from({ length: n }, (_, i) => `${word} ipsum dolor ${i}`).join(' ');

test('two chunks under the same heading both come back (fusion is keyed by chunk, not by title)', () => {
  const store = storeWith({
    'guide.md': [
      { title: 'Guide > Example', text: 'An example of configuring the retry budget.' },
      { title: 'Guide > Example', text: 'Another example: the retry budget with backoff.' },
    ],
  });
  const { results } = search(contextFor(store), 'retry budget example');
  assert.equal(results.length, 2);
  assert.notEqual(results[0]!.chunkId, results[1]!.chunkId);
  assert.deepEqual(
    results.map((r) => r.title),
    ['Guide > Example', 'Guide > Example'],
  );
  store.close();
});

test('a typo next to a correctly spelled word is still corrected', () => {
  const store = storeWith({
    'k8s.md': [{ title: 'Deploying', text: 'Deploy the kubernetes cluster and scale the pods with a deployment.' }],
    'cluster.md': [{ title: 'Cluster', text: 'a kubernetes cluster runs the control plane' }],
    'pods.md': [{ title: 'Containers', text: 'pods are groups of containers' }],
  });
  const response = search(contextFor(store), 'kuberntes pods');
  assert.deepEqual(response.corrections, [['kuberntes', 'kubernetes']]);
  const [top] = response.results;
  assert.equal(top?.path, 'k8s.md', 'the chunk with both words wins once the typo is fixed');
  assert.deepEqual(top.explain.fuzzy?.corrections, [['kuberntes', 'kubernetes']]);
  const onlyCorrected = response.results.find((r) => r.path === 'cluster.md');
  assert.equal(onlyCorrected?.stage, 'fuzzy', 'found only by the corrected query');
  store.close();
});

test('a word the index never uses is not "corrected" into one that shares no chunk with the other words', () => {
  const store = storeWith({
    'did-you-mean.js': [{ title: 'didYouMean', text: 'Did you mean one of these commands? Suggestions are chosen by levenshtein distance.' }],
    'path.js': [{ title: 'isType', text: 'isType(type) { return this.is(type) }' }],
    'close.js': [{ title: 'isClose', text: 'const isClose = (a, b) => distance(a, b) < a.length * 0.4' }],
  });
  const context = contextFor(store);
  const response = search(context, 'levenshtein distance mistyped');
  assert.deepEqual(response.corrections, [], '`istype` is two edits from `mistyped` but never beside these words');
  assert.ok(
    response.results.every((r) => r.path !== 'path.js'),
    'no chunk comes in through the discarded correction',
  );
  assert.equal(response.results[0]?.path, 'did-you-mean.js');
  assert.deepEqual(search(context, 'mistyped').corrections, [['mistyped', 'istype']], 'alone, the closest word is still offered');
  assert.deepEqual(search(context, 'levenshtein distnce').corrections, [['distnce', 'distance']], 'a typo of a word used beside the others is corrected');
  store.close();
});

test('an English word the index lacks is searched as typed: its absence is no sign of a typo', () => {
  const store = storeWith({
    'notify.go': [{ title: 'Reloading', text: 'Reloading notifies the service manager that the server is reloading its config.' }],
    'docs/reload.md': [{ title: 'Graceful reload', text: 'The one downside of a graceful config reload is the memory both configs hold for a moment.' }],
  });
  const context = contextFor(store);
  const response = search(context, 'graceful config reload without downtime');
  assert.deepEqual(response.corrections, [], '`downtime` is two edits from `downside`, which sits beside the other words');
  assert.ok(
    response.results.every((r) => r.stage !== 'fuzzy'),
    'no result comes from a corrected query',
  );
  assert.deepEqual(
    search(context, 'graceful config relaod without downtime').corrections,
    [['relaod', 'reload']],
    'a misspelling beside it still is corrected',
  );
  store.close();
});

test('the answer names the query words no chunk holds in any form, and only those', () => {
  const store = storeWith({
    'guide.md': [{ title: 'Guides', text: 'Each guide explains one reload of the server config.' }],
    'alloc.c': [{ title: 'kmalloc', text: 'void *kmalloc(size_t size) { return reserve(size); }' }],
  });
  const context = contextFor(store);
  const response = search(context, 'server guides alloc reload downtime wombatish');
  // `guides` is stemmed to the guide's `guide`; `alloc` is inside `kmalloc`, which the trigram list finds.
  assert.deepEqual(response.unmatched, ['downtime', 'wombatish']);
  assert.ok(response.results.length > 0, 'the results match the other words');
  const typo = search(context, 'server relaod');
  assert.deepEqual(typo.corrections, [['relaod', 'reload']]);
  assert.deepEqual(typo.unmatched, [], 'a corrected word is a correction, not a missing word');
  assert.deepEqual(search(context, 'wombatish').unmatched, ['wombatish'], 'with no results at all');
  store.close();
});

test('fuzzy mode "empty" only retries when nothing was found, and "off" never does', () => {
  const store = storeWith({
    'k8s.md': [{ text: 'kubernetes cluster' }],
    'pods.md': [{ text: 'pods are small' }],
  });
  const context = contextFor(store);
  assert.deepEqual(search(context, 'kuberntes pods', { fuzzy: 'empty' }).corrections, []);
  assert.deepEqual(search(context, 'kuberntes', { fuzzy: 'empty' }).corrections, [['kuberntes', 'kubernetes']]);
  const off = search(context, 'kuberntes', { fuzzy: 'off' });
  assert.deepEqual(off.corrections, []);
  assert.equal(off.results.length, 0);
  store.close();
});

test('a candidate fused just below the limit can be promoted by the proximity rerank', () => {
  // Eight shorter chunks mention both words far apart, so BM25 ranks them first; one chunk
  // holds the exact phrase. It fuses below a limit of 5 but the rerank window reaches it.
  const files: Record<string, Array<{ text: string; title: string }>> = {};
  for (let i = 0; i < 8; i++) {
    files[`noise${i}.md`] = [{ title: `Noise ${i}`, text: `cache ${filler(20, `noise${i}`)} invalidation ${i}` }];
  }
  files['answer.md'] = [{ title: 'Notes', text: `${filler(30)} cache invalidation ${filler(30)}` }];
  const store = storeWith(files);
  const noRerank = search(contextFor(store), 'cache invalidation', { limit: 5, stages: { proximity: false, feedback: false }, fuzzy: 'off' });
  assert.ok(!noRerank.results.some((r) => r.path === 'answer.md'), 'without the rerank it misses the cut');
  const { results } = search(contextFor(store), 'cache invalidation', { limit: 5, stages: { feedback: false }, fuzzy: 'off' });
  const answer = results.find((r) => r.path === 'answer.md');
  assert.ok(answer, 'the rerank promoted it into the top 5');
  assert.equal(answer.stage, 'proximity');
  assert.ok(answer.explain.proximity!.fusedRank > 5);
  assert.ok(answer.explain.proximity!.finalRank <= 5);
  store.close();
});

test('asking for three results finds the chunk both lists agree on, as asking for thirty does', () => {
  // Fifteen notes hold `connecting`'s stem (the Porter list's first fifteen) and fifteen logs hold
  // it inside longer words (the trigram list's); only the answer holds the word itself, sixteenth
  // in both lists. Fusion puts it first, if the lists are read that deep whatever the limit.
  const files: Record<string, Array<{ text: string; title: string }>> = {};
  for (let i = 0; i < 15; i++) {
    files[`stemmed${i}.md`] = [{ title: `Note ${i}`, text: `connected connection note ${i}` }];
    files[`inside${i}.md`] = [{ title: `Log ${i}`, text: `reconnecting disconnecting log ${i}` }];
  }
  files['answer.md'] = [{ title: 'Sockets', text: 'sockets keep connecting' }];
  const context = contextFor(storeWith(files));
  const many = search(context, 'connecting', { limit: 30 });
  assert.equal(many.results[0]?.path, 'answer.md');
  assert.equal(many.results[0].explain.porter?.rank, 16, 'below the first fifteen in the Porter list');
  const few = search(context, 'connecting', { limit: 3 });
  assert.equal(few.results[0]?.path, 'answer.md', 'a small limit does not cut the lists above it');
  context.store.close();
});

test('the rerank keeps a chunk BM25 clearly preferred above one that only holds the words as a phrase once', () => {
  // The promotion above works because the noise outscored the answer by little. Here the design
  // note says both words eight times and the aside says them once in a long text: RRF alone puts
  // them one rank apart, and the aside's phrase alone would swap them.
  const store = storeWith({
    'design.md': [{ title: 'Design', text: Array.from({ length: 8 }, () => `cache ${filler(3)} invalidation ${filler(3)}`).join(' ') }],
    'aside.md': [{ title: 'Aside', text: `${filler(60)} cache invalidation ${filler(60)}` }],
    ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`misc${i}.md`, [{ title: `Misc ${i}`, text: filler(10, 'other') }]])),
  });
  const { results } = search(contextFor(store), 'cache invalidation', { fuzzy: 'off' });
  assert.deepEqual(
    results.map((r) => r.path),
    ['design.md', 'aside.md'],
  );
  const [design, aside] = results;
  assert.ok(aside!.explain.proximity!.boost > design!.explain.proximity!.boost, 'the aside has the better layout');
  assert.ok(aside!.explain.proximity!.lexical < 0.6 && design!.explain.proximity!.lexical > 0.95, 'but far less lexical weight');
  store.close();
});

test('identifiers are found by their parts and as a whole', () => {
  const store = storeWith({
    'hpa.ts': [{ title: 'HorizontalPodAutoscaler', text: 'class HorizontalPodAutoscaler { scale() {} }' }],
    'config.py': [{ title: 'parse_config', text: 'def parse_config(path): return load(path)' }],
    'paths.py': [{ title: 'join', text: 'full = os.path.join(base, name)' }],
    'other.md': [{ text: 'nothing to see here at all' }],
  });
  const context = contextFor(store);
  const top = (q: string) => search(context, q).results[0]?.path;
  assert.equal(top('horizontalPod'), 'hpa.ts');
  assert.equal(top('autoscaler'), 'hpa.ts');
  assert.equal(top('parse_config'), 'config.py');
  assert.equal(top('config'), 'config.py');
  assert.equal(top('os.path.join'), 'paths.py');
  store.close();
});

test('FTS5 syntax, emoji, empty and huge queries return results or an empty list, never throw', () => {
  const store = storeWith({ 'a.ts': [{ text: 'function parse(config) { return config.near + 1 }' }] });
  const context = contextFor(store);
  const hostile = [
    '"',
    '""',
    '"unbalanced',
    '(',
    ')',
    '((parse',
    'parse)',
    'NEAR(parse config)',
    'NEAR/3',
    'parse NEAR/2 config',
    '*',
    'pars*',
    '^parse',
    'title:parse',
    'text : config',
    '{title}: parse',
    'AND',
    'OR',
    'NOT',
    'parse AND OR NOT config',
    '-parse',
    '+config',
    ':',
    ';',
    '\\',
    "'",
    '`',
    '😀',
    '👩‍👩‍👧 parse 🎉',
    'e\u0301e\u0301',
    'مرحبا parse',
    '',
    '   ',
    '\0',
    'x'.repeat(10_000),
    'parse '.repeat(2_000),
  ];
  for (const query of hostile) {
    const response = search(context, query);
    assert.ok(Array.isArray(response.results), `results for ${JSON.stringify(query.slice(0, 20))}`);
  }
  assert.equal(search(context, 'NEAR(parse config)').results[0]?.path, 'a.ts', 'operators are searched as words');
  store.close();
});

test('filters apply before the cut, so a filtered search still fills its page', () => {
  const files: Record<string, Array<{ title?: string; text: string }>> = {};
  for (let i = 0; i < 30; i++) files[`docs/guide${i}.md`] = [{ text: `timeout handling explained ${i}` }];
  for (let i = 0; i < 6; i++) files[`src/net${i}.ts`] = [{ text: `const timeout = ${i}; // handling ${filler(10)}` }];
  const store = storeWith(files);
  const context = contextFor(store);
  const code = search(context, 'timeout handling', { limit: 5, filters: { kind: 'code' } });
  assert.equal(code.results.length, 5);
  assert.ok(code.results.every((r) => r.kind === 'code'));
  const globbed = search(context, 'timeout handling', { limit: 5, filters: { include: ['src/**'] } });
  assert.equal(globbed.results.length, 5);
  assert.ok(globbed.results.every((r) => r.path.startsWith('src/')));
  const excluded = search(context, 'timeout handling', { limit: 50, filters: { exclude: ['*.md'] } });
  assert.equal(excluded.results.length, 6);
  store.close();
});

test('every result explains itself: list ranks, BM25, RRF contributions, proximity ranks', () => {
  const store = storeWith({ 'a.ts': [{ title: 'retryPolicy', text: 'export function retryPolicy(attempts) { return backoff(attempts) }' }] });
  const response = search(contextFor(store), 'retry policy');
  const [result] = response.results;
  assert.ok(result);
  const { explain } = result;
  assert.equal(explain.porter?.rank, 1);
  assert.equal(explain.trigram?.rank, 1);
  assert.ok(explain.porter.bm25 < 0, 'SQLite bm25: lower is better');
  assert.equal(explain.rrf.k, 60);
  assert.ok(Math.abs(explain.rrf.contributions.porter! - 1 / 61) < 1e-12, 'weight 1 / (k + rank 1)');
  assert.ok(Math.abs(explain.rrf.contributions.trigram! - 0.5 / 61) < 1e-12, 'the trigram list weighs half by default');
  assert.ok(Math.abs(explain.rrf.score - 1.5 / 61) < 1e-12);
  assert.equal(explain.proximity?.lexical, 1, 'the best match of both query lists');
  assert.equal(explain.proximity?.fusedRank, 1);
  assert.equal(explain.proximity?.finalRank, 1);
  assert.equal(result.stage, 'rrf');
  assert.ok(result.matches.length > 0);
  const [start, end] = result.matches[0]!;
  assert.match(result.snippet.slice(start, end), /retry|policy/i);
  store.close();
});

test('a pasted word too long to be a typo is not corrected, and the vocabulary is not even built', () => {
  const store = storeWith({ 'a.ts': [{ text: 'const short = 1;' }] });
  const context = { store, vocabulary: () => assert.fail('the vocabulary was built for a pasted word') };
  const response = search(context, 'x'.repeat(200));
  assert.deepEqual(response.corrections, []);
  store.close();
});

test('a letter under an overlay mark and a pasted a_a_a_… identifier are searched without an exception', () => {
  const store = storeWith({ 'a.ts': [{ text: 'const kmalloc_wrapper = a_a_a;' }] });
  const context = contextFor(store);
  assert.ok(Array.isArray(search(context, 'k\u0336\u0334m\u0337a\u0335lloc').results));
  assert.equal(search(context, 'a_'.repeat(5000)).results[0]?.path, 'a.ts');
  store.close();
});

test('on an index too big to score whole, a half-typed identifier is found by substring even when its parts are common', () => {
  // Past 20,000 chunks the lists stop scoring every match and the trigram list only searches what
  // the Porter list cannot answer; this is that path.
  const files: Record<string, Array<{ title?: string; text: string }>> = {};
  for (let f = 0; f < 700; f++) {
    files[`drivers/file${f}.c`] = Array.from({ length: 30 }, (_, c) => ({ text: `register the device ${f} queue ${c}: register_driver(dev${f}_${c});` }));
  }
  files['net/core/dev.c'] = [{ title: 'register_netdevice_notifier', text: 'int register_netdevice_notifier(struct notifier_block *nb) { return 0; }' }];
  const store = storeWith(files);
  assert.ok(store.size > 20_000);
  const { results } = search(contextFor(store), 'register_netdev');
  assert.equal(results[0]?.path, 'net/core/dev.c');
  assert.ok(results[0].explain.trigram, 'found by the trigram list');
  store.close();
});

/** The expressions the store's Porter list samples from now on (`IndexStore.matchSample`), in order. */
function porterSamples(store: IndexStore): string[] {
  const sampled: string[] = [];
  const matchSample = store.matchSample.bind(store);
  store.matchSample = (table, expression, ...rest) => {
    if (table === 'porter') sampled.push(expression);
    return matchSample(table, expression, ...rest);
  };
  return sampled;
}

test('on an index too big to score whole, two common words rarely together are sampled together once, then either', () => {
  const files: Record<string, Array<{ text: string }>> = {};
  for (let f = 0; f < 700; f++) {
    files[`part${f}.md`] = Array.from({ length: 30 }, (_, c) => ({ text: `${f % 2 === 0 ? 'alpha' : 'beta'} note ${f} ${c}` }));
  }
  files['both.md'] = [{ text: 'alpha and beta together' }];
  const store = storeWith(files);
  assert.ok(store.size > 20_000);
  const sampled = porterSamples(store);
  const { results } = search(contextFor(store), 'alpha beta', { stages: { feedback: false } });
  assert.equal(results[0]?.path, 'both.md');
  // The conjunction holds one chunk, fewer than a list wants; the conjunction of each word's rarest
  // phrase is the same expression, so the next sample is of either word.
  assert.deepEqual(sampled, ['"alpha" AND "beta"', '"alpha" OR "beta"']);
  store.close();
});

/**
 * A store too big to score whole, with what a vocabulary build keeps of it: the counts of the words
 * in more chunks than a list scores whole.
 */
function bigStoreWithWordCounts(files: Record<string, Array<{ text: string }>>): IndexStore {
  const store = storeWith(files);
  assert.ok(store.size > 20_000);
  const { words, docFreq } = store.vocabulary();
  store.saveCommonWordCounts(words.map((word, i): [string, number] => [word, docFreq[i]!]).filter(([, count]) => count > 4_000));
  return store;
}

test('on an index too big to score whole, a question’s sample is ranked without the commonest words, as long as three remain to rank it', () => {
  const files: Record<string, Array<{ text: string }>> = {};
  for (let f = 0; f < 700; f++) {
    files[`part${f}.md`] = Array.from({ length: 30 }, (_, c) => ({
      text: `a note ${f} ${c}${c < 10 ? ' often' : ''}${c === 0 ? ' alpha beta gamma delta' : ''}`,
    }));
  }
  files['best.md'] = [{ text: 'a note, often: alpha, and alpha beta gamma delta, beta gamma delta again' }];
  const store = bigStoreWithWordCounts(files);
  const ranked: Array<[string, string]> = [];
  const matchSampleRankedBy = store.matchSampleRankedBy.bind(store);
  store.matchSampleRankedBy = (table, expression, rankedBy, ...rest) => {
    ranked.push([expression, rankedBy]);
    return matchSampleRankedBy(table, expression, rankedBy, ...rest);
  };
  const context = contextFor(store);
  const { results } = search(context, 'note alpha beta gamma', { stages: { feedback: false } });
  assert.equal(results[0]?.path, 'best.md');
  assert.deepEqual(ranked, [['"note" AND "alpha" AND "beta" AND "gamma"', '"alpha" AND "beta" AND "gamma"']]);
  // Two words left would rank the sample too differently: the commonest leaves, the other stays.
  ranked.length = 0;
  assert.equal(search(context, 'note often alpha beta', { stages: { feedback: false } }).results[0]?.path, 'best.md');
  assert.deepEqual(ranked, [['"note" AND "often" AND "alpha" AND "beta"', '"often" AND "alpha" AND "beta"']]);
  ranked.length = 0;
  assert.equal(search(context, 'note alpha beta', { stages: { feedback: false } }).results[0]?.path, 'best.md');
  assert.deepEqual(ranked, []);
  store.close();
});

test('on an index too big to score whole, the last sample, of any query word, leaves out the words most chunks hold', () => {
  const files: Record<string, Array<{ text: string }>> = {};
  for (let f = 0; f < 700; f++) files[`part${f}.md`] = Array.from({ length: 30 }, (_, c) => ({ text: `a note ${f} ${c}${c < 6 ? ' alpha' : ''}` }));
  files['omega.md'] = [{ text: 'omega with alpha' }, { text: 'omega alone' }];
  const store = bigStoreWithWordCounts(files);
  const sampled = porterSamples(store);
  const { results } = search(contextFor(store), 'note alpha omega', { stages: { feedback: false } });
  assert.equal(results[0]?.path, 'omega.md');
  // `alpha` is in a fifth of the chunks, `note` in all: the first 2,000 chunks holding either
  // would be the sample, and counting them for their IDF its cost.
  assert.deepEqual(sampled, ['"note" AND "alpha" AND "omega"', '"omega"']);
  store.close();
});

test('a last word still being typed is matched by the Porter list as a prefix', () => {
  const store = storeWith({
    'lock.c': [{ title: 'take_lock', text: 'spin_lock_irqsave(&dev->lock, flags); counter++;' }],
    'other.c': [{ title: 'spin', text: 'spin the wheel; lock the door' }],
  });
  const { results } = search(contextFor(store), 'spin_lock_irqsa');
  assert.equal(results[0]?.path, 'lock.c');
  assert.equal(results[0].explain.porter?.rank, 1, 'the Porter list found the half-typed word');
  assert.deepEqual(search(contextFor(store), 'spin_lock_irqsa').corrections, [], 'a word being typed is not "corrected"');
  store.close();
});

test('an identifier with a number in it outranks chunks that only share the number', () => {
  const files: Record<string, Array<{ title?: string; text: string }>> = {
    'soak.md': [{ title: 'Soak file', text: `soakchange234 memory barrier ${filler(40, 'padding')}` }],
  };
  // The number is rare in the index, as `234` is in a kernel tree, so BM25 makes much of it.
  for (let i = 0; i < 30; i++) files[`regulator${i}.c`] = [{ title: `buck_234_ops_${i}`, text: `static const int buck_234[] = { 234, 234 }; /* ${i} */` }];
  for (let i = 0; i < 1000; i++) files[`other${i}.c`] = [{ text: `static int other_${i}(void) { return ${i + 1000}; }` }];
  const store = storeWith(files);
  const { results } = search(contextFor(store), 'soakchange234', { limit: 10 });
  assert.equal(results[0]?.path, 'soak.md');
  store.close();
});

test("feedback: a question's results that share the best matches' field words move up; none lacks the query's words", () => {
  const store = storeWith({
    'flutter.md': [
      { title: 'Flutter of heated wings', text: 'Aeroelastic models of heated aircraft wings: thermal stress lowers the flutter speed of the panels.' },
    ],
    'tunnel.md': [{ title: 'Wind tunnel', text: 'Wind tunnel models of heated panels show flutter under thermal stress.' }],
    'panels.md': [{ title: 'Panels', text: 'Thermal stress and flutter of aircraft panels at high speed.' }],
    'seats.md': [{ title: 'Cabin', text: 'Aircraft seats: cushions, fabric and colours of the cabin.' }],
    'bridges.md': [{ title: 'Bridges', text: 'Flutter of suspension bridges under thermal stress.' }],
    ...Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`misc${i}.md`, [{ title: `Misc ${i}`, text: `notes number ${i} about gardening and cooking` }]]),
    ),
  });
  const context = contextFor(store);
  const paths = (response: ReturnType<typeof search>) => response.results.map((r) => r.path);
  const without = search(context, 'heated aircraft models', { stages: { feedback: false } });
  assert.deepEqual(without.feedbackWords, []);
  assert.ok(paths(without).indexOf('seats.md') < paths(without).indexOf('panels.md'), 'both say "aircraft" only; the shorter ranks first');

  const withFeedback = search(context, 'heated aircraft models');
  assert.ok(withFeedback.feedbackWords.includes('flutter') && withFeedback.feedbackWords.includes('thermal'));
  assert.ok(!withFeedback.feedbackWords.some((word) => ['heated', 'aircraft', 'models'].includes(word)));
  assert.ok(paths(withFeedback).indexOf('panels.md') < paths(withFeedback).indexOf('seats.md'), 'the flutter panels now outrank the seats');
  const panels = withFeedback.results.find((r) => r.path === 'panels.md')!;
  assert.ok(panels.explain.feedback && panels.explain.rrf.contributions.feedback! > 0, 'the feedback list explains its vote');
  assert.ok(!paths(withFeedback).includes('bridges.md'), "a chunk with feedback words but none of the query's is not a result");

  const lookup = search(context, 'aircraft models');
  assert.deepEqual(lookup.feedbackWords, [], 'a two-word lookup runs no feedback');
  store.close();
});

test("the explanation names the title's part of the proximity boost titleBoost, apart from the title column's BM25 weight", () => {
  const store = storeWith({
    'named.ts': [{ title: 'retryPolicy', kind: 'code', text: 'export function retryPolicy(attempts) { return backoff(attempts) }' }],
    'unnamed.ts': [{ title: 'helpers', kind: 'code', text: 'const policy = retry(attempts); // retry policy for uploads' }],
  });
  const context = contextFor(store);
  const titleBoost = (titleColumnWeight: number) =>
    Object.fromEntries(search(context, 'retry policy', { titleColumnWeight }).results.map((r) => [r.path, r.explain.proximity?.titleBoost]));
  const usual = titleBoost(5);
  assert.ok(usual['named.ts']! > 0, 'the title names the query');
  assert.equal(usual['unnamed.ts'], 0, 'the title names none of it');
  assert.deepEqual(titleBoost(1), usual, "the title column's BM25 weight is another number");
  store.close();
});

test('a corrected query keeps identifiers whole and leads the results', () => {
  const store = storeWith({
    'nr5a2.md': [{ title: 'Receptor', text: 'NR5A2 drives development of endometrial tissue.' }],
    'tissue.md': [{ title: 'Tissue', text: 'endometrial tissue samples, 5 of 2 grades, type a' }],
    'growth.md': [{ title: 'Growth', text: 'development of tissue in growth plates' }],
  });
  const response = search(contextFor(store), 'NR5A2 developemnt endometrial');
  assert.deepEqual(response.corrections, [['developemnt', 'development']]);
  assert.equal(response.results[0]?.path, 'nr5a2.md', 'NR5A2 is still searched as one word after the correction');
  const growth = response.results.findIndex((r) => r.path === 'growth.md');
  assert.ok(growth >= 0 && response.results[growth]!.stage === 'fuzzy', 'found only through the corrected word');
  store.close();
});

test("the file's name and folders count as a chunk's title: `semver satisfies` prefers the satisfies function in semver's own folder", () => {
  // The same function in both (not quite the same text: a copy would be folded into one result).
  const text = 'const satisfies = (version, range) => new Range(range).test(version) // the semver range check';
  const store = storeWith({
    'lib/helpers/node.js': [{ title: 'satisfies', text: `${text}, as ours` }],
    'node_modules/semver/functions/satisfies.js': [{ title: 'satisfies', text }],
  });
  const { results } = search(contextFor(store), 'semver satisfies');
  assert.deepEqual(
    results.map((r) => r.path),
    ['node_modules/semver/functions/satisfies.js', 'lib/helpers/node.js'],
  );
  assert.ok(results[0]!.explain.proximity!.titleBoost > results[1]!.explain.proximity!.titleBoost, 'the path is what lifted it');
  store.close();
});

test("a code chunk is found by its folders' names, but not by the layout's: `semver` finds semver's satisfies.js, `node_modules` finds only text that says it", () => {
  const store = storeWith({
    'node_modules/semver/functions/satisfies.js': [{ title: 'satisfies', text: 'const satisfies = (version, range) => new Range(range).test(version)' }],
    'node_modules/ssri/lib/index.js': [{ title: 'checkData', text: 'function checkData (data, sri) { return parse(sri).match(data) }' }],
    'lib/commands/ci.js': [{ title: 'CI > exec', text: 'await rm(path.join(where, "node_modules"), { recursive: true })' }],
  });
  const context = contextFor(store);
  assert.deepEqual(
    search(context, 'semver').results.map((r) => r.path),
    ['node_modules/semver/functions/satisfies.js'],
    'its text never says semver; its folder does',
  );
  assert.deepEqual(
    search(context, 'node_modules').results.map((r) => r.path),
    ['lib/commands/ci.js'],
    'every dependency sits under node_modules/, which says nothing about it',
  );
  store.close();
});

test("a query naming a file finds the function that answers it, not the file's header: every code chunk is indexed under its file's name", () => {
  const store = storeWith({
    'lib/rules/eqeqeq.js': [
      {
        title: 'eqeqeq.js (top level)',
        text: '/**\n * @fileoverview Rule to flag statements that use != and ==\n */\n"use strict";\nconst astUtils = require("./utils/ast-utils");',
      },
      {
        title: 'module.exports > create',
        text: 'create(context) {\n  const config = context.options[0] || "always";\n  const options = context.options[1] || {};\n  const enforceRuleForNull = config === "always" ? options.null !== "ignore" : false;\n  function isTypeOf(node) { return node.type === "UnaryExpression" && node.operator === "typeof"; }\n  // smart: typeof comparisons and comparisons to null are allowed\n  if (config === "smart" && (isTypeOfBinary(node) || areLiteralsAndSameType(node) || isNullCheck(node))) return;\n  report(node, `${node.operator}=`);\n}',
      },
    ],
    'lib/rules/no-eq-null.js': [
      { title: 'module.exports > create', text: 'create(context) { if (node.right.type === "Literal" && node.right.raw === "null") report(node); }' },
    ],
    'lib/rules/valid-typeof.js': [
      {
        title: 'module.exports > create',
        text: 'create(context) { const VALID_TYPES = ["symbol", "undefined", "object"]; if (node.operator === "typeof") check(node); }',
      },
    ],
  });
  const { results } = search(contextFor(store), 'eqeqeq smart');
  assert.equal(results[0]?.title, 'module.exports > create', `first: ${results[0]?.path} ${results[0]?.title}`);
  assert.equal(results[0]?.path, 'lib/rules/eqeqeq.js');
  store.close();
});

test('a section pasted into many pages is one result that names its copies; the slots go to other answers', () => {
  // npm's docs repeat each config option's section in every command's page.
  const section = '#### `workspaces` Default: null. Set to true to run the command in the context of all configured workspaces.';
  const files: Record<string, Array<{ text: string; title: string }>> = {};
  for (let i = 0; i < 12; i++) files[`docs/commands/npm-cmd${i}.md`] = [{ title: 'Configuration > workspaces', text: section }];
  files['lib/definitions.js'] = [
    {
      title: 'definitions > workspaces',
      text: "workspaces: new Definition('workspaces', { default: null, description: 'run the command in all configured workspaces' })",
    },
  ];
  files['docs/using-npm/workspaces.md'] = [
    { title: 'Workspaces', text: 'Workspaces let you run a command in the context of all configured workspaces at once.' },
  ];
  const store = storeWith(files);
  const { results } = search(contextFor(store), 'workspaces configured command', { limit: 5 });
  const pasted = results.filter((r) => r.path.startsWith('docs/commands/'));
  assert.equal(pasted.length, 1, `one result for the pasted section: ${results.map((r) => r.path).join(', ')}`);
  const [kept] = pasted as [SearchResult];
  assert.equal(kept.copies?.length, 11, 'it names the eleven other pages');
  assert.ok(
    (kept.copies ?? []).every((copy) => copy.path.startsWith('docs/commands/') && copy.path !== kept.path && copy.startLine === 1),
    'each copy is another page, with its lines',
  );
  const paths = results.map((r) => r.path);
  assert.ok(paths.includes('lib/definitions.js') && paths.includes('docs/using-npm/workspaces.md'), `the other answers made the page: ${paths.join(', ')}`);
  assert.equal(results.filter((r) => r.copies).length, 1, 'a result with a text of its own has no copies');
  store.close();
});

test('a page in Chinese and its HTML rendering, or in Russian and its next version, is one result; another page in the same script is not folded', () => {
  // Chinese puts no spaces between words, and Cyrillic has no ASCII letter: read as ASCII words,
  // neither text had any, and only the same characters folded.
  const chinese =
    '索引把工作区的文件分成块，存入嵌入式数据库。搜索时先查两个词法列表，再用倒数排名融合合并，然后按邻近度重新排序，最后对拼错的词进行模糊重试。';
  const russian = [
    'Установка расширения занимает одну минуту: откройте панель расширений, найдите его по имени и нажмите кнопку установки.',
    'После установки индекс рабочей области строится в фоне, и строка состояния показывает, сколько файлов уже прочитано.',
  ];
  const store = storeWith({
    'docs/zh/guide.md': [{ title: '使用指南', text: chinese }],
    'site/zh/guide.html': [{ title: '使用指南', kind: 'prose', text: `<p>${chinese.replace('倒数排名融合', '<code>倒数排名融合</code>')}</p>` }],
    'docs/zh/faq.md': [{ title: '常见问题', text: '倒数排名融合是什么？它把两个列表按名次合并，名次越靠前得分越高，与分数的尺度无关。' }],
    'docs/v1/ru/install.md': [{ title: 'Установка', text: russian.join(' ') }],
    'docs/v2/ru/install.md': [{ title: 'Установка', text: `${russian.join(' ')} Обновления приходят сами.` }],
    'docs/v2/ru/update.md': [
      { title: 'Обновление', text: 'Обновление расширения не требует установки заново: индекс остаётся на месте и дочитывает изменённые файлы.' },
    ],
  });
  const context = contextFor(store);
  const fused = search(context, '倒数排名融合').results;
  const guides = fused.filter((r) => r.path.endsWith('guide.md') || r.path.endsWith('guide.html'));
  assert.equal(guides.length, 1, `the guide and its rendering are one result: ${fused.map((r) => r.path).join(', ')}`);
  const rendering = guides[0]!.path === 'docs/zh/guide.md' ? 'site/zh/guide.html' : 'docs/zh/guide.md';
  assert.deepEqual(
    guides[0]!.copies?.map((copy) => [copy.path, copy.alike]),
    [[rendering, true]],
  );
  assert.ok(
    fused.some((r) => r.path === 'docs/zh/faq.md'),
    'the other page is a result of its own',
  );
  const install = search(context, 'установки').results;
  const versions = install.filter((r) => r.path.endsWith('install.md'));
  assert.equal(versions.length, 1, `the two versions are one result: ${install.map((r) => r.path).join(', ')}`);
  assert.deepEqual(
    versions[0]!.copies?.map((copy) => [copy.path.replace(/v\d/, 'vN'), copy.alike]),
    [['docs/vN/ru/install.md', true]],
  );
  assert.ok(
    install.some((r) => r.path === 'docs/v2/ru/update.md'),
    'the other page is a result of its own',
  );
  context.store.close();
});

test('pages of a search neither repeat nor skip a result: each is the slice of one ranking, and past the end is empty', () => {
  // Forty notes hold the query's words, some side by side and some far apart, so the proximity
  // rerank reorders what the lists fused.
  const files: Record<string, Array<{ text: string; title: string }>> = {};
  for (let i = 0; i < 40; i++) {
    const text = i % 3 === 0 ? `retry backoff policy note ${i}` : `retry ${filler(i % 7, `pad${i}`)} then backoff policy ${i}`;
    files[`notes/n${i}.md`] = [{ title: `Note ${i}`, text }];
  }
  const context = contextFor(storeWith(files));
  const ids = (offset: number) => search(context, 'retry backoff', { limit: 10, offset }).results.map((r) => r.chunkId);
  const pages = [ids(0), ids(10), ids(20), ids(30)];
  const paged = pages.flat();
  assert.equal(paged.length, 40);
  assert.equal(new Set(paged).size, 40, 'no result comes back on two pages');
  const firstWindow = search(context, 'retry backoff', { limit: 30, rerankWindow: 30 }).results.map((r) => r.chunkId);
  assert.deepEqual(paged.slice(0, 30), firstWindow, 'the pages read, in order, as one search reranked in the first page’s window');
  // A typo: the corrected ranking leads and the typed one follows, both reranked a window at a time.
  const typoPages = [0, 10, 20, 30, 40].flatMap((offset) => search(context, 'retry bakcoff', { limit: 10, offset }).results.map((r) => r.chunkId));
  assert.equal(new Set(typoPages).size, typoPages.length, 'no result of a corrected query comes back on two pages');
  assert.ok(typoPages.length >= 40, `${typoPages.length} results over the pages`);
  const later = search(context, 'retry backoff', { limit: 10, offset: 10 });
  assert.equal(later.offset, 10, 'the response says which results it skipped');
  const past = search(context, 'retry backoff', { limit: 10, offset: 40 });
  assert.deepEqual(past.results, []);
  assert.equal(past.candidates, 40, 'and how many matched, so the caller knows why the page is empty');
  context.store.close();
});

test('a test counts less than the code it tests, unless the query asks about tests', () => {
  // The test says what the rule does in the question's words, as tests do; the code says it once.
  const store = storeWith({
    'lib/rules/radix.js': [
      { title: 'checkArguments', text: "// parseInt without a radix: report the missing radix\nif (args.length === 1) report(node, 'missingRadix')" },
    ],
    'tests/lib/rules/radix.js': [
      {
        title: 'radix',
        text: "// reports a missing radix: parseInt without a radix argument\ninvalid: [{ code: 'parseInt(\"10\")', errors: ['missingRadix'] }]",
      },
    ],
  });
  const context = contextFor(store);
  const about = search(context, 'parseInt missing radix');
  assert.deepEqual(
    about.results.map((r) => r.path),
    ['lib/rules/radix.js', 'tests/lib/rules/radix.js'],
  );
  assert.equal(about.results[1]!.explain.proximity!.testFactor, 0.7);
  assert.match(describeAsText(about.results[1]!).join('\n'), /a test \(×0\.70\)/);
  assert.equal(about.results[0]!.explain.proximity!.testFactor, undefined);
  const tests = search(context, 'tests for parseInt missing radix');
  assert.equal(tests.results[0]?.path, 'tests/lib/rules/radix.js', 'asked about tests, the test is not counted less');
  assert.equal(tests.results[0].explain.proximity!.testFactor, undefined);
  const asCode = search(context, 'parseInt missing radix', { testWeight: 1 });
  assert.equal(asCode.results[0]?.path, 'tests/lib/rules/radix.js', 'at a weight of 1 tests rank as code');
  store.close();
});

test('a changelog entry counts less than the code it describes, unless the query asks about releases or history', () => {
  // fluentd: asked how in_tail detects a rotation, its changelog's entry came first.
  const store = storeWith({
    'lib/fluent/plugin/in_tail.rb': [
      {
        title: 'TailWatcher > RotateHandler > on_notify',
        text: 'def on_notify(stat)\n  # a new inode or a shorter file: the log was rotated\n  @on_rotate.call(stat) if rotated?(stat)',
      },
    ],
    'CHANGELOG.md': [
      { title: 'Release v1.13.3 > Bug fix', text: '* in_tail: Fix detecting rotation twice on `follow_inode`.\n  https://github.com/fluent/fluentd/pull/3466' },
    ],
  });
  const context = contextFor(store);
  const about = search(context, 'in_tail detect rotation');
  assert.deepEqual(
    about.results.map((r) => r.path),
    ['lib/fluent/plugin/in_tail.rb', 'CHANGELOG.md'],
  );
  assert.equal(about.results[1]!.explain.proximity!.changelogFactor, 0.7);
  assert.match(describeAsText(about.results[1]!).join('\n'), /a changelog \(×0\.70\)/);
  const history = search(context, 'in_tail detect rotation release notes');
  assert.equal(history.results[0]?.path, 'CHANGELOG.md', 'asked about releases, the changelog is not counted less');
  assert.equal(history.results[0].explain.proximity!.changelogFactor, undefined);
  const asDocument = search(context, 'in_tail detect rotation', { changelogWeight: 1 });
  assert.equal(asDocument.results[0]?.path, 'CHANGELOG.md', 'at a weight of 1 the entry, in the query’s words, ranks first');
  store.close();
});

test("a build's output counts less than the sources it was built from, unless the query asks about builds", () => {
  // axios commits its bundles: the bundler's copy of a function, renamed, beside the source.
  const store = storeWith({
    'lib/core/Axios.js': [
      {
        title: 'Axios > _request',
        text: '_request(configOrUrl, config) {\n  // the interceptors first\n  const chain = [dispatchRequest.bind(this), undefined];',
      },
    ],
    'dist/esm/axios.js': [
      {
        title: 'Axios$1 > _request',
        text: '_request(configOrUrl, config) {\n    // request interceptors, then dispatch\n    const chain = [dispatchRequest.bind(this), undefined];',
      },
    ],
  });
  const context = contextFor(store);
  const about = search(context, 'request interceptors dispatch');
  assert.deepEqual(
    about.results.map((r) => r.path),
    ['lib/core/Axios.js', 'dist/esm/axios.js'],
  );
  assert.equal(about.results[1]!.explain.proximity!.builtFactor, 0.7);
  assert.match(describeAsText(about.results[1]!).join('\n'), /a build's output \(×0\.70\)/);
  const bundle = search(context, 'request interceptors dispatch in the bundle');
  assert.equal(
    bundle.results.find((r) => r.path === 'dist/esm/axios.js')?.explain.proximity!.builtFactor,
    undefined,
    'asked about the bundle, it is not counted less',
  );
  const asCode = search(context, 'request interceptors dispatch', { buildOutputWeight: 1 });
  assert.equal(asCode.results[0]?.path, 'dist/esm/axios.js', 'at a weight of 1 the bundle, whose comment says the query in order, ranks first');
  store.close();
});

test("another project's code committed into this one counts less than the project's own, unless the query asks about it", () => {
  // redis: "command" is in nearly every chunk, and deps/fast_float's lookup tables hold "lookup tables" in every title.
  const store = storeWith({
    'src/server.c': [
      {
        title: 'lookupCommand',
        text: 'struct redisCommand *lookupCommand(robj **argv, int argc) {\n  return lookupCommandLogic(server.commands, argv, argc, 0);',
      },
    ],
    'deps/fast_float/fast_float.h': [
      {
        title: 'fast_float > binary_format_lookup_tables<double, U>',
        text: 'template <typename U> struct binary_format_lookup_tables<double, U> {\n  static constexpr double powers_of_ten[] = {1e0, 1e1};',
      },
    ],
  });
  const context = contextFor(store);
  const own = search(context, 'command lookup tables');
  assert.deepEqual(
    own.results.map((r) => r.path),
    ['src/server.c', 'deps/fast_float/fast_float.h'],
  );
  assert.equal(own.results[1]!.explain.proximity!.vendoredFactor, 0.7);
  assert.match(describeAsText(own.results[1]!).join('\n'), /another project's code \(×0\.70\)/);
  const asked = search(context, 'command lookup tables in the vendored deps');
  assert.equal(
    asked.results.find((r) => r.path === 'deps/fast_float/fast_float.h')?.explain.proximity!.vendoredFactor,
    undefined,
    'asked about vendored code, it is not counted less',
  );
  const asOwn = search(context, 'command lookup tables', { vendoredWeight: 1 });
  assert.equal(asOwn.results[0]?.path, 'deps/fast_float/fast_float.h', 'at a weight of 1 the tables, whose title holds two of the words, rank first');
  store.close();
});

test("a test module inside a code file counts less too, as Rust keeps a module's unit tests", () => {
  // bat's src/assets.rs: the lookup, and below it `mod tests`, whose functions are named for what they check.
  const store = storeWith({
    'src/assets.rs': [
      {
        title: 'HighlightingAssets > get_syntax_for_path',
        text: 'pub fn get_syntax_for_path(&self, path: &Path) -> Result<SyntaxReferenceInSet> {\n    // the first line decides when the extension does not\n    self.get_first_line_syntax(path)',
      },
      {
        title: 'tests > syntax_for_path_from_first_line',
        text: 'fn syntax_for_path_from_first_line() {\n    assert_eq!(test.syntax_for_path("first line"), "Bourne Again Shell");',
      },
    ],
  });
  const context = contextFor(store);
  const about = search(context, 'syntax for path first line');
  assert.deepEqual(
    about.results.map((r) => r.title),
    ['HighlightingAssets > get_syntax_for_path', 'tests > syntax_for_path_from_first_line'],
  );
  assert.equal(about.results[1]!.explain.proximity!.testFactor, 0.7);
  assert.match(describeAsText(about.results[1]!).join('\n'), /a test \(×0\.70\)/);
  const asCode = search(context, 'syntax for path first line', { testWeight: 1 });
  assert.equal(asCode.results[0]?.title, 'tests > syntax_for_path_from_first_line', 'at a weight of 1 the test, named for the query, ranks first');
  store.close();
});
