// `locate` over a small repository in several languages (helpers/locate-repo.ts): committed stack
// traces and issue texts (test/fixtures/locate/) with known answers. Each case says why the
// answer is first and what the next places hold.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { IndexKeeper } from '../../src/core/index-keeper.ts';
import { locate, type LocateAnswer } from '../../src/core/locate.ts';
import { writeLocateRepo } from './helpers/locate-repo.ts';
import { tempDir } from './helpers/store.ts';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/locate/${name}`, import.meta.url), 'utf8');
const paths = (answer: LocateAnswer) => answer.files.map((f) => f.path);

let keeper: IndexKeeper;

before(async () => {
  keeper = await IndexKeeper.open({ root: writeLocateRepo(), kind: 'test' });
  await keeper.sync();
});

after(async () => {
  await keeper.close();
});

test('a Python traceback from an installed copy points at the raising file first, then its caller', async () => {
  const answer = await locate(keeper, fixture('python.txt'));
  // gateway.py: the innermost frame (its site-packages path ends with the indexed path) and the
  // message it raises, verbatim. cli.py: one frame. The test file shares words, no frame.
  assert.deepEqual(paths(answer).slice(0, 2), ['app/payments/gateway.py', 'app/cli.py']);
  const [gateway, cli] = answer.files;
  assert.deepEqual(gateway!.why.slice(0, 2), ['stack frame app/payments/gateway.py:10 in charge', 'quotes "amount must be positive" verbatim']);
  const frameChunk = gateway!.chunks[0]!;
  assert.ok(frameChunk.startLine <= 10 && 10 <= frameChunk.endLine, 'the first chunk holds the frame line');
  assert.equal(gateway!.line, 10, 'the line a person opening the file lands on');
  assert.equal(gateway!.lineText, 'raise ValueError("amount must be positive")');
  assert.equal(cli!.chunks[0]!.title, 'main');
  assert.ok(answer.clues.some((c) => c.kind === 'error' && c.text === 'ValueError'));
});

test('a Node stack points at the file two frames and the thrown message share', async () => {
  const answer = await locate(keeper, fixture('node.txt'));
  assert.equal(paths(answer)[0], 'web/src/server.js');
  const server = answer.files[0]!;
  assert.ok(server.why.includes('stack frame web/src/server.js:12 in parseBody'));
  assert.equal(server.line, 12, "the first of the file's two frames, where the error was thrown");
  assert.ok(server.why.includes('quotes "Cannot parse request body" verbatim'));
  assert.equal(server.chunks[0]!.title, 'parseBody');
  assert.ok(!paths(answer).some((p) => p.includes('node_modules')), 'the express frame is in no indexed file');
});

test("Laravel's JSON error response, slashes escaped, points at the controller line that threw, by the response's file and line", async () => {
  const answer = await locate(keeper, fixture('laravel.json'));
  // The thrown site is app code; the framework's frames are in vendor/, which the repository does
  // not hold, and the controller's `show` is named by the framework frame that called it.
  assert.equal(paths(answer)[0], 'shop/app/Http/Controllers/OrderController.php');
  const controller = answer.files[0]!;
  assert.equal(controller.why[0], 'stack frame shop/app/Http/Controllers/OrderController.php:18');
  assert.ok(controller.why.includes('defines OrderController.show'), controller.why.join(' | '));
  assert.equal(controller.line, 18);
  assert.equal(controller.lineText, "return view('orders.show', ['order' => $order->load('lines')]);");
});

test('a Java trace finds the class by its package folder, under src/main/java', async () => {
  const answer = await locate(keeper, fixture('java.txt'));
  assert.equal(paths(answer)[0], 'service/src/main/java/com/acme/orders/OrderService.java');
  const chunk = answer.files[0]!.chunks[0]!;
  assert.ok(chunk.startLine <= 12 && 12 <= chunk.endLine, 'the first chunk holds the frame line');
});

test('a Go panic points at the panicking method, then main', async () => {
  const answer = await locate(keeper, fixture('go.txt'));
  assert.deepEqual(paths(answer).slice(0, 2), ['worker/queue/consumer.go', 'worker/main.go']);
  assert.ok(answer.files[0]!.why.includes('quotes "queue closed while polling" verbatim'));
  assert.equal(answer.files[0]!.chunks[0]!.title, 'Consumer > Poll');
});

test('a Rust panic resolves src/cache.rs inside the crate folder', async () => {
  const answer = await locate(keeper, fixture('rust.txt'));
  assert.equal(paths(answer)[0], 'engine/src/cache.rs');
  assert.ok(answer.files[0]!.why.some((w) => w.startsWith('stack frame engine/src/cache.rs:8')));
});

test("a Rust panic from another checkout finds the file by the message on the line after the panic's place", async () => {
  // The place is in the reporter's copy of the crate, which shares no path with this one; since
  // Rust 1.73 the message is the next line, unquoted.
  const answer = await locate(keeper, "thread 'main' panicked at /build/vendor/engine-0.3.1/lib/store.rs:8:29:\ncache is empty, nothing to evict\n");
  assert.equal(paths(answer)[0], 'engine/src/cache.rs');
  assert.ok(answer.files[0]!.why.includes('quotes "cache is empty" verbatim'), answer.files[0]!.why.join(' | '));
});

test('an issue in words finds the file by the message it quotes in backticks', async () => {
  const answer = await locate(keeper, fixture('issue-words.md'));
  // config.py holds "unknown setting … in section" as an f-string: the runs of words between the
  // values match verbatim. No file defines or names anything else the issue says.
  assert.equal(paths(answer)[0], 'app/config.py');
  assert.ok(answer.files[0]!.why.includes('quotes "unknown setting" verbatim'));
  assert.equal(answer.files[0]!.line, undefined, 'no frame, no line');
  assert.ok(answer.clues.some((c) => c.kind === 'message' && c.text === "unknown setting 'timeout' in section 'http'"));
});

test('a Class.method mention finds the method inside a class kept as one chunk', async () => {
  const answer = await locate(keeper, 'Refunds fail silently: PaymentGateway.refund never checks the response.');
  assert.equal(paths(answer)[0], 'app/payments/gateway.py');
  assert.ok(answer.files[0]!.why.includes('defines PaymentGateway.refund'));
});

test('a module.function mention finds the function in the module of that name, not its namesakes', async () => {
  // worker/main.go defines a `main` too; `cli.main` says which one.
  const answer = await locate(keeper, 'Calling `cli.main` without arguments crashes instead of printing the usage.');
  assert.equal(paths(answer)[0], 'app/cli.py');
  assert.ok(answer.files[0]!.why.includes('defines cli.main'));
  assert.ok(!answer.files.some((f) => f.path === 'worker/main.go' && f.why.some((w) => w.startsWith('defines'))));
});

test('a frame outweighs any number of word matches, and a named error class brings its definition', async () => {
  // The words are all about payments (gateway.py, models.py, the docs); the frame is in retry.py.
  const text = 'ConnectionError while charging an invoice payment gateway refund amount\n  File "app/net/retry.py", line 10, in stream_with_retry';
  const answer = await locate(keeper, text);
  assert.equal(paths(answer)[0], 'app/net/retry.py');
});

test('many frames in one file weigh less than one frame and the message it raises', async () => {
  const dispatcher = Array.from({ length: 8 }, (_, i) => `    at dispatch (/srv/app/web/src/router.js:${i + 6}:5)`).join('\n');
  const answer = await locate(keeper, `${dispatcher}\n${fixture('python.txt')}`);
  assert.equal(paths(answer)[0], 'app/payments/gateway.py');
  assert.ok(paths(answer).indexOf('web/src/router.js') > 0);
});

test('an issue a test describes in its own words points at the code first, and at the test as a test', async () => {
  // test_snapshot.py's name and comment say what the issue says, twice over; snapshot.py's
  // docstring says it once. At full weight the test would come first; the fix is in the code.
  const answer = await locate(keeper, 'A truncated snapshot file should be moved aside and the snapshot rebuilt, but loading it crashes.');
  assert.deepEqual(paths(answer).slice(0, 2), ['app/store/snapshot.py', 'tests/test_snapshot.py']);
  assert.equal(answer.files[1]!.why.at(-1), 'a test file: counts half');
  assert.ok(!answer.files[0]!.why.includes('a test file: counts half'));
});

test("an issue written under its template's headings points at the code, not at the template", async () => {
  // bug_report.md holds the headings and their rare words (describe, reproduce, behavior);
  // gateway.py holds what the issue is about (refund, client).
  const issue =
    '**Describe the bug**\nA refund is never posted.\n\n**Steps to reproduce**\nCharge an invoice, then refund the charge.\n\n**Expected behavior**\nThe refund is posted to the payment client.';
  const answer = await locate(keeper, issue);
  assert.deepEqual(paths(answer).slice(0, 2), ['app/payments/gateway.py', '.github/ISSUE_TEMPLATE/bug_report.md']);
  assert.equal(answer.files[1]!.why.at(-1), 'about the project, not its code: counts half');
});

test("an issue's permalink to a line of the code points at that file and line, said as a link", async () => {
  const issue = 'Refunds are posted without a check, see https://github.com/acme/shop/blob/4f2a9c1/app/payments/gateway.py#L14 here.';
  const answer = await locate(keeper, issue);
  const gateway = answer.files[0]!;
  assert.equal(gateway.path, 'app/payments/gateway.py');
  assert.equal(gateway.line, 14);
  assert.equal(gateway.why[0], 'links to app/payments/gateway.py:14');
  assert.deepEqual(
    answer.clues.filter((clue) => clue.kind === 'link'),
    [{ kind: 'link', text: 'app/payments/gateway.py:14' }],
  );
  // A link to the whole file is a link too, said as one.
  const whole = await locate(keeper, 'Refunds are posted without a check, see https://github.com/acme/shop/blob/main/app/payments/gateway.py');
  assert.equal(whole.files[0]!.path, 'app/payments/gateway.py');
  assert.equal(whole.files[0]!.why[0], 'links to app/payments/gateway.py');
  assert.deepEqual(
    whole.clues.filter((clue) => clue.kind === 'link' || clue.kind === 'path'),
    [{ kind: 'link', text: 'app/payments/gateway.py' }],
  );
});

test('a file named in prose, without a folder or a line, is found by its name', async () => {
  const ambiguous = await locate(keeper, 'crash in main.go? no, in models.py line 3 maybe');
  assert.ok(ambiguous.files.some((f) => f.why.includes('names app/payments/models.py')));
});

test('text with nothing that points at code answers no files', async () => {
  const answer = await locate(keeper, 'Hello there, thanks for the great work!');
  assert.deepEqual(answer.files, []);
  assert.equal((await locate(keeper, '')).files.length, 0);
});

test('a long paste (a whole issue, a 200-frame trace) is answered with bounded work', async () => {
  const frames = Array.from({ length: 200 }, (_, i) => `    at step${i} (/srv/app/web/src/router.js:${(i % 12) + 1}:5)`).join('\n');
  const prose = 'The router dispatch loses the body when the request is retried. '.repeat(400);
  const text = `${prose}\n\`\`\`\nTypeError: Cannot parse request body\n${frames}\n\`\`\`\n${fixture('python.txt')}`;
  const answer = await locate(keeper, text, { limit: 5 });
  assert.equal(answer.files.length, 5);
  // router.js: twelve distinct frames and the prose; gateway.py: a frame and its message.
  assert.deepEqual(paths(answer).slice(0, 2).sort(), ['app/payments/gateway.py', 'web/src/router.js']);
  const router = answer.files.find((f) => f.path === 'web/src/router.js')!;
  assert.ok(
    router.why.some((w) => /^and \d+ more frames$/.test(w)),
    'many frames in one file are summed up, not listed',
  );
  assert.ok(answer.elapsedMs < 3000, `answered in ${answer.elapsedMs.toFixed(0)} ms`);
});

test("a frame naming a line past the file's end (a trace from an older version) still ranks the file, with the line but no text", async () => {
  const answer = await locate(keeper, 'Traceback (most recent call last):\n  File "/srv/app/payments/gateway.py", line 400, in charge\nValueError: boom');
  const gateway = answer.files[0]!;
  assert.equal(gateway.path, 'app/payments/gateway.py');
  assert.equal(gateway.line, 400);
  assert.equal(gateway.lineText, undefined);
});

test('a frame from another version of its file, whose line here is in another function, opens at the function it names', async () => {
  // consumer.go:16 is in Close in this copy; the trace was printed by a version where Poll ran there.
  const text =
    'panic: queue closed while polling\n\ngoroutine 1 [running]:\nexample.com/worker/queue.(*Consumer).Poll(0xc000010018?)\n\t/home/dev/src/worker/queue/consumer.go:16 +0x65';
  const consumer = (await locate(keeper, text)).files[0]!;
  assert.equal(consumer.path, 'worker/queue/consumer.go');
  assert.equal(consumer.line, 8);
  assert.equal(consumer.lineText, 'func (c *Consumer) Poll() Message {');
  assert.equal(consumer.why[0], 'stack frame worker/queue/consumer.go:16 in Consumer.Poll (at line 8 here)');
  assert.equal(consumer.chunks[0]!.title, 'Consumer > Poll');
  // Its own function's line stays where the frame says.
  const current = (await locate(keeper, text.replace(':16 ', ':10 '))).files[0]!;
  assert.equal(current.line, 10);
  assert.equal(current.why[0], 'stack frame worker/queue/consumer.go:10 in Consumer.Poll');
});

test('a qualified name is found among many namesakes whose files are named after the name', async () => {
  // Thirty renderers define Render in render/; a lookup of the bare name reads only the first
  // chunks it finds, and the files named render would fill it.
  const root = tempDir('fused-locate-namesakes-');
  fs.mkdirSync(path.join(root, 'render'));
  for (let i = 0; i < 30; i++) {
    fs.writeFileSync(
      path.join(root, 'render', `render_${i}.go`),
      `package render\n\ntype Render${i} struct{}\n\nfunc (r Render${i}) Render() error {\n\treturn nil\n}\n`,
    );
  }
  fs.writeFileSync(path.join(root, 'context.go'), 'package gin\n\ntype Context struct{}\n\nfunc (c *Context) Render(code int) {\n\tc.Status(code)\n}\n');
  const namesakes = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await namesakes.sync();
    const answer = await locate(namesakes, 'The panic comes from `Context.Render` when the writer is gone.');
    assert.equal(paths(answer)[0], 'context.go');
    assert.ok(answer.files[0]!.why.includes('defines Context.Render'));
  } finally {
    await namesakes.close();
  }
});

test("a test's label names what it tests, not what it declares: only the code that defines the name is credited", async () => {
  const root = tempDir('fused-locate-labels-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'test'));
  fs.writeFileSync(
    path.join(root, 'src', 'dom.js'),
    'export function render(vnode, parent) {\n\tconst dom = document.createElement(vnode.type);\n\tparent.appendChild(dom);\n\treturn dom;\n}\n',
  );
  const cases = ['should render NaN as text content', 'should render "" as an empty text node', 'should not render when detecting JSON-injection'];
  const body = (label: string) => `\tit('${label}', () => {\n\t\tconst root = setup();\n\t\tassert.ok(root.firstChild);\n\t\tteardown(root);\n\t});\n`;
  fs.writeFileSync(path.join(root, 'test', 'text.test.js'), `describe('render', () => {\n${cases.map(body).join('\n')}});\n`);
  fs.writeFileSync(path.join(root, 'src', 'components.js'), "Vue.component('TodoItem', {\n\tprops: ['todo'],\n\ttemplate: '<li>{{ todo.text }}</li>',\n});\n");
  const labels = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await labels.sync();
    assert.deepEqual(
      labels.chunksOfFile('test/text.test.js').map((chunk) => chunk.title),
      ["describe('render')"],
    );
    const answer = await locate(labels, '`render` leaves an empty text node for NaN');
    assert.equal(paths(answer)[0], 'src/dom.js');
    assert.ok(answer.files[0]!.why.includes('defines render'));
    const testFile = answer.files.find((file) => file.path === 'test/text.test.js');
    assert.ok(!testFile?.why.some((why) => why.startsWith('defines')), `the test defines nothing: ${testFile?.why.join('; ')}`);
    // Outside tests a quoted name is a registration, and the call that registers it defines it.
    const registered = await locate(labels, 'The `TodoItem` component shows no text');
    assert.equal(paths(registered)[0], 'src/components.js');
    assert.ok(registered.files[0]!.why.includes('defines TodoItem'), registered.files[0]!.why.join('; '));
  } finally {
    await labels.close();
  }
});

test('a chain through a value (`Faker::Internet.unique.email`) is credited to what the value is in, not to every namesake', async () => {
  const root = tempDir('fused-locate-chain-');
  fs.mkdirSync(path.join(root, 'lib'));
  const generator = (name: string, body: string) =>
    `module Faker\n  class ${name}\n    def email(name: nil)\n${body}\n    end\n\n    def unique\n      UniqueGenerator.new(self)\n    end\n  end\nend\n`;
  fs.writeFileSync(path.join(root, 'lib', 'internet.rb'), generator('Internet', "      [username(name), domain_name].join('@')"));
  fs.writeFileSync(path.join(root, 'lib', 'company.rb'), generator('Company', '      "contact@#{domain}"'));
  const chain = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await chain.sync();
    const answer = await locate(chain, 'Generated addresses are invalid:\n\n```ruby\nFaker::Internet.unique.email(name: " Msgr. Titus Harvey")\n```');
    assert.equal(paths(answer)[0], 'lib/internet.rb');
    assert.ok(answer.files[0]!.why.includes('defines Internet.email'), answer.files[0]!.why.join('; '));
    const company = answer.files.find((file) => file.path === 'lib/company.rb');
    assert.ok(!company?.why.some((why) => why.startsWith('defines')), `Company's email is a namesake: ${company?.why.join('; ')}`);
  } finally {
    await chain.close();
  }
});

test('a Class.method is credited to every file that defines it, whether its class is one chunk or split into methods, and not to a class that only calls it', async () => {
  // lombok keeps a javac and an Eclipse twin of each handler; the small one stays one chunk.
  const root = tempDir('fused-locate-twins-');
  fs.mkdirSync(path.join(root, 'javac'));
  fs.mkdirSync(path.join(root, 'eclipse'));
  fs.writeFileSync(path.join(root, 'javac', 'HandleHelper.java'), 'class HandleHelper {\n  void handle(Node node) {\n    node.up();\n  }\n}\n');
  const filler = Array.from(
    { length: 80 },
    (_, i) => `  void step${i}(Node node) {\n    node.visit(${i}, "a long enough body to fill the chunk ${i}");\n  }\n`,
  ).join('\n');
  fs.writeFileSync(path.join(root, 'eclipse', 'HandleHelper.java'), `class HandleHelper {\n  void handle(Node node) {\n    node.up();\n  }\n\n${filler}}\n`);
  // Its type declarations declare `handle` as a signature, with no body; a class of that name that
  // only calls `handle` does not define it.
  fs.mkdirSync(path.join(root, 'types'));
  fs.writeFileSync(path.join(root, 'types', 'HandleHelper.d.ts'), 'export class HandleHelper {\n  handle(node: Node): void;\n}\n');
  fs.mkdirSync(path.join(root, 'web'));
  fs.writeFileSync(
    path.join(root, 'web', 'HandleHelper.js'),
    'class HandleHelper {\n  run(node) {\n    handle(node);\n    return node.handle(this);\n  }\n}\n',
  );
  const twins = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await twins.sync();
    const answer = await locate(twins, 'Calling `HandleHelper.handle` on a class inside a method fails.');
    assert.deepEqual(paths(answer).slice(0, 3).sort(), ['eclipse/HandleHelper.java', 'javac/HandleHelper.java', 'types/HandleHelper.d.ts']);
    for (const file of answer.files.slice(0, 3)) assert.ok(file.why.includes('defines HandleHelper.handle'), file.path);
    const caller = answer.files.find((file) => file.path === 'web/HandleHelper.js');
    assert.ok(!caller?.why.includes('defines HandleHelper.handle'), caller?.why.join(' | '));
  } finally {
    await twins.close();
  }
});

test("of a Python traceback's frames in one file, the innermost, printed last, is the line the file opens at", async () => {
  const text = [
    'Traceback (most recent call last):',
    '  File "/srv/app/payments/gateway.py", line 14, in refund',
    '  File "/srv/app/payments/gateway.py", line 10, in charge',
    'ValueError: amount must be positive',
  ].join('\n');
  const gateway = (await locate(keeper, text)).files[0]!;
  assert.equal(gateway.path, 'app/payments/gateway.py');
  assert.equal(gateway.line, 10);
  assert.equal(gateway.lineText, 'raise ValueError("amount must be positive")');
  assert.deepEqual(gateway.why.slice(0, 2), ['stack frame app/payments/gateway.py:10 in charge', 'stack frame app/payments/gateway.py:14 in refund']);
});

test('a JVM frame from another version opens at its method in an inner class kept as one chunk, but not at one of several overloads', async () => {
  const root = tempDir('fused-locate-jvm-');
  const pkg = path.join(root, 'src', 'main', 'java', 'com', 'acme');
  fs.mkdirSync(pkg, { recursive: true });
  const filler = Array.from(
    { length: 60 },
    (_, i) => `  void step${i}(Node node) {\n    node.visit(${i}, "a long enough body to fill the chunk ${i}");\n  }\n`,
  ).join('\n');
  const factory = [
    'package com.acme;',
    '',
    'class Factory {',
    filler,
    '  static final class Adapter {',
    '    Object read(Reader in) throws IOException {',
    '      Object value = in.read();',
    '      return value;',
    '    }',
    '',
    '    void close() {',
    '      read(null);',
    '    }',
    '  }',
    '}',
  ].join('\n');
  fs.writeFileSync(path.join(pkg, 'Factory.java'), factory);
  const parse = (type: string) => `  Object parse(${type} input) {\n    return input.toString().trim().length() > 0 ? input : null;\n  }\n`;
  fs.writeFileSync(path.join(pkg, 'Parser.java'), `package com.acme;\n\nclass Parser {\n${parse('String')}\n${parse('Reader')}\n${filler}}\n`);
  const jvm = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await jvm.sync();
    // Line 20 of Factory.java is in step4 here; the trace's version ran Adapter.read there.
    const trace = [
      'java.lang.IllegalStateException: closed',
      '\tat com.acme.Factory$Adapter.read(Factory.java:20)',
      '\tat com.acme.Parser.parse(Parser.java:30)',
    ].join('\n');
    const answer = await locate(jvm, trace);
    const factoryFile = answer.files.find((f) => f.path === 'src/main/java/com/acme/Factory.java')!;
    const readLine = factory.split('\n').indexOf('    Object read(Reader in) throws IOException {') + 1;
    assert.equal(factoryFile.line, readLine, 'the declaration of read, not its call in close');
    assert.equal(factoryFile.why[0], `stack frame src/main/java/com/acme/Factory.java:20 in Adapter.read (at line ${readLine} here)`);
    // Parser has two parse methods: which one the trace's line 30 was in, nothing says; it stays.
    const parser = answer.files.find((f) => f.path === 'src/main/java/com/acme/Parser.java')!;
    assert.equal(parser.line, 30);
    assert.equal(parser.why[0], 'stack frame src/main/java/com/acme/Parser.java:30 in Parser.parse');
  } finally {
    await jvm.close();
  }
});

test('an error class named twice is said once per file; a document section titled by a name counts where no code defines it, as a section on it', async () => {
  const root = tempDir('fused-locate-sections-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(
    path.join(root, 'src', 'QuotaExceededError.ts'),
    'export class QuotaExceededError extends Error {\n  constructor(readonly limit: number) {\n    super(`quota of ${limit} exceeded`);\n  }\n}\n',
  );
  fs.writeFileSync(
    path.join(root, 'TROUBLESHOOTING.md'),
    '# Troubleshooting\n\n## QuotaExceededError\n\nRaise the limit in the settings, or wait for the next hour.\n\n## `uploadWindow`\n\nThe hour the quota counts over, in minutes.\n',
  );
  const sections = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await sections.sync();
    const answer = await locate(sections, 'After an hour of uploads (`uploadWindow` is 60): src.errors.QuotaExceededError: quota of 100 exceeded');
    const code = answer.files.find((f) => f.path === 'src/QuotaExceededError.ts')!;
    assert.equal(code.why.filter((w) => w === 'defines QuotaExceededError').length, 1, code.why.join(' | '));
    // The code defining the error takes its whole credit; the setting only the guide names is the guide's.
    const guide = answer.files.find((f) => f.path === 'TROUBLESHOOTING.md')!;
    assert.ok(!guide.why.some((w) => w.includes('QuotaExceededError')), guide.why.join(' | '));
    assert.ok(guide.why.includes('a section on uploadWindow'), guide.why.join(' | '));
    assert.ok(!guide.why.some((w) => w.startsWith('defines')), guide.why.join(' | '));
  } finally {
    await sections.close();
  }
});

test("a Node trace through a package's build (lib/*.js) points at the TypeScript it was built from, at the function each frame names", async () => {
  const root = tempDir('fused-locate-built-');
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write(
    'packages/acme-parser/src/source-map.ts',
    [
      'import type { Options } from "./options";',
      '',
      'export default class SourceMap {',
      '  private readonly sources: string[];',
      '  constructor(opts: Options) {',
      '    this.sources = opts.sourcesContent.map((s) => s.trim());',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  write(
    'packages/acme-parser/src/index.ts',
    'import SourceMap from "./source-map";\n\nexport function generate(opts: object) {\n  return new SourceMap(opts);\n}\n',
  );
  write(
    'packages/acme-core/src/transform.ts',
    [
      'import { transform as inner } from "./inner";',
      'import { run } from "./index";',
      '',
      'export function transform(code: string) {',
      '  return run(inner(code));',
      '}',
      '',
    ].join('\n'),
  );
  write('packages/acme-core/src/index.ts', 'export function run(code: string) {\n  return code;\n}\n');
  const built = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await built.sync();
    const trace = [
      "TypeError: Cannot read properties of undefined (reading 'map')",
      '    at new SourceMap (/app/node_modules/@acme/parser/lib/source-map.js:31:99)',
      '    at generate (/app/node_modules/@acme/parser/lib/index.js:88:15)',
      '    at transform (/app/node_modules/@acme/core/lib/transform.js:22:41)',
      '    at bundled (/app/node_modules/tool/dist/index.js:400:1)',
    ].join('\n');
    const answer = await locate(built, trace);
    const file = (p: string) => answer.files.find((f) => f.path === p);
    // The built file's line says nothing about the source's: each opens at the function its frame names.
    const sourceMap = file('packages/acme-parser/src/source-map.ts')!;
    assert.equal(sourceMap.line, 3);
    assert.equal(sourceMap.lineText, 'export default class SourceMap {');
    assert.equal(sourceMap.why[0], 'stack frame @acme/parser/lib/source-map.js:31 in SourceMap, built from this file (line 3 here)');
    // Of the two src/index.ts, the installed @acme/parser is the repository's acme-parser.
    assert.equal(file('packages/acme-parser/src/index.ts')!.why[0], 'stack frame @acme/parser/lib/index.js:88 in generate, built from this file (line 3 here)');
    // transform.ts's top-level chunk is titled by the file and imports a `transform`: the function is line 4.
    assert.equal(file('packages/acme-core/src/transform.ts')!.line, 4);
    // A bundle's dist/index.js is no src/index.ts that lacks the frame's function.
    assert.ok(!file('packages/acme-core/src/index.ts')?.why.some((w) => w.startsWith('stack frame')), JSON.stringify(file('packages/acme-core/src/index.ts')));
    assert.deepEqual(paths(answer).slice(0, 3).sort(), [
      'packages/acme-core/src/transform.ts',
      'packages/acme-parser/src/index.ts',
      'packages/acme-parser/src/source-map.ts',
    ]);
  } finally {
    await built.close();
  }
});

test('of files the evidence weighs alike, the one the text points at first comes first, not the first by name', async () => {
  const root = tempDir('fused-locate-ties-');
  fs.mkdirSync(path.join(root, 'app'));
  fs.writeFileSync(path.join(root, 'app', 'alpha.py'), 'def run_alpha():\n    return 1\n');
  fs.writeFileSync(path.join(root, 'app', 'omega.py'), 'def run_omega():\n    return 1\n');
  const ties = await IndexKeeper.open({ root, kind: 'test' });
  try {
    await ties.sync();
    const answer = await locate(ties, 'Crashed at /srv/app/omega.py:2, called from /srv/app/alpha.py:2');
    assert.equal(answer.files[0]!.score, answer.files[1]!.score, JSON.stringify(answer.files));
    assert.deepEqual(paths(answer), ['app/omega.py', 'app/alpha.py']);
  } finally {
    await ties.close();
  }
});
