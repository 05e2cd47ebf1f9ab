import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileRole, isBuildOutput, isChangelog, isTest, isVendored } from '../../src/core/file-roles.ts';

test('test files are told by the names test tools give them, in every language', () => {
  for (const path of [
    'test/unit/store.test.ts',
    'src/parser.spec.js',
    'packages-private/dts-test/scheduler.test-d.ts',
    'src/__snapshots__/render.test.tsx.snap',
    'web/__tests__/router.js',
    'pkg/cache/cache_test.go',
    'internal/lexer/testdata/input.txt',
    'tests/test_gateway.py',
    'app/test_models.py',
    'app/models_test.py',
    'conftest.py',
    'spec/models/user_spec.rb',
    'base/strings/string_util_unittest.cc',
    'src/test/java/com/acme/ParserTest.java',
    'Acme.Tests/ArrayTests.cs',
    'tests/Unit/ModelTestCase.php',
    'test\\fixtures\\config.json',
    'testing/equivalence-tests/outputs/basic_list/plan',
    'tokio/tests-build/src/lib.rs',
    'type-definitions/ts-tests/covariance.ts',
    'caddytest/integration/caddyfile_adapt/reverse_proxy_load_balance.caddyfiletest',
    'ext/fts5/fts5aa.test',
    'Acme.Tests/Helpers.cs',
    'fastlane/swift/ExampleUITests/ExampleUITests.swift',
  ]) {
    assert.equal(fileRole(path), 'test', path);
  }
});

test("examples, demos and benchmarks are told apart from the project's code", () => {
  for (const path of [
    'examples/todo/src/main.rs',
    'demo/todo.jsx',
    'packages/web/demos/list.js',
    'samples/Hello/Program.cs',
    'benches/src/util.js',
    'benches/parse.rs',
    'benchmark/run.ts',
    'docs\\examples\\app.py',
  ]) {
    assert.equal(fileRole(path), 'example', path);
  }
});

test('files about the project, lockfiles and vendored code are told apart from its code', () => {
  for (const path of [
    '.github/ISSUE_TEMPLATE/bug_report.md',
    '.github/workflows/ci.yml',
    '.circleci/config.yml',
    'CONTRIBUTING.md',
    'docs/CODE_OF_CONDUCT.md',
    'SECURITY.md',
  ]) {
    assert.equal(fileRole(path), 'project', path);
  }
  for (const path of ['package-lock.json', 'web/yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'go.sum', 'Gemfile.lock', 'composer.lock', 'poetry.lock']) {
    assert.equal(fileRole(path), 'lockfile', path);
  }
  for (const path of [
    'vendor/github.com/pkg/errors/errors.go',
    'crates/red_knot_vendored/vendor/typeshed/stdlib/builtins.pyi',
    'third_party/zlib/inflate.c',
    'src/third-party/lodash.js',
    'web/node_modules/express/lib/router.js',
    'deps/fast_float/fast_float.h',
    'internal/warpc/deps/parson/parson.c',
  ]) {
    assert.equal(fileRole(path), 'vendored', path);
  }
});

test('code and documents whose names only mention tests, projects, locks, vendors or examples have no role', () => {
  for (const path of [
    'src/core/store.ts',
    'docs/content/commands/npm-test.md',
    'lib/commands/install-ci-test.js',
    'lib/rule-tester/rule-tester.js',
    'src/testing.ts',
    'src/contest.py',
    'cmd/attest/main.go',
    'src/main/java/com/acme/Latest.java',
    'README.md',
    'CHANGELOG.md',
    'docs/contributing-guide.md',
    'src/security.ts',
    'src/lock.rs',
    'lib/github/client.js',
    'src/vendors.ts',
    'lib/vendor-prefix.js',
    'crates/red_knot_vendored/src/lib.rs',
    'deps/deps.go',
    'src/deps.ts',
    'src/example.ts',
    'lib/rules/prefer-example.js',
    'src/bench.rs',
    'docs/examples.md',
    'spaceship/lib/spaceship/test_flight/build.rb',
    'lib/latests/feed.rb',
    'releases/VERSION.latest',
    'Sources/ABTestsKit/Experiment.swift',
  ]) {
    assert.equal(fileRole(path), undefined, path);
  }
});

test('a test inside a code file is a test: in a test module, or a Rust item marked as one; a function named test is not', () => {
  const code = 'fn run() {}';
  for (const [path, title, text] of [
    ['src/assets.rs', 'tests > syntax_detection_first_line', code],
    ['src/lib.rs', 'parser > tests > rejects_empty_input', code],
    ['src/lib.rs', 'test > helper', code],
    ['tests/cli.rs', 'runs_with_no_arguments', code],
    ['crates/core/flags/defs.rs', 'test_smart_case', '#[cfg(test)]\n#[test]\nfn test_smart_case() {'],
    ['src/io.rs', 'reads_lines', '/// Reads lines.\n#[tokio::test]\nasync fn reads_lines() {'],
  ]) {
    assert.ok(isTest(path!, title!, text!), `${path} ${title}`);
  }
  for (const [path, title, text] of [
    ['src/assets.rs', 'HighlightingAssets > get_syntax_for_path', '#[inline]\npub fn get_syntax_for_path(&self) {'],
    ['src/regexp.js', 'RegExp > test', code],
    ['src/runner.py', 'test', code],
    ['src/lib.rs', 'contests > rank', code],
    ['src/lib.rs', 'attests > verify', code],
    ['src/lib.rs', 'lib.rs (top level)', 'mod parser;\n\n#[cfg(test)]\nmod tests;'],
    ['src/gen.py', 'Gen', '#[test]\nclass Gen:'],
  ]) {
    assert.ok(!isTest(path!, title!, text!), `${path} ${title}`);
  }
});

test("a project's record of its changes is told by the names projects give it; code named history is not", () => {
  for (const path of [
    'CHANGELOG.md',
    'axum/CHANGELOG.md',
    'History.markdown',
    'NEWS',
    'CHANGES.rst',
    'debian/changelog',
    'RELEASE_NOTES.txt',
    'doc/ChangeLog-old.md',
    'CHANGES-2.x.md',
    'changelog/fix_autocorrect.md',
    'newsfragments/1234.bugfix',
    '.changeset/brave-dogs-run.md',
  ]) {
    assert.ok(isChangelog(path), path);
  }
  for (const path of ['src/history.ts', 'lib/news.py', 'app/models/release.rb', 'docs/releasing.md', 'src/changes/diff.rs', 'NEWS-feed.md']) {
    assert.ok(!isChangelog(path), path);
  }
});

test("a build's output is told by its dist/ folder or a minified name; build scripts and names that start with dist are code", () => {
  for (const path of ['dist/axios.js', 'dist/esm/axios.min.js.map', 'packages/core/dist/index.mjs', 'static/js/jquery.min.js', 'css/site.min.css']) {
    assert.ok(isBuildOutput(path), path);
  }
  for (const path of ['build/gulpfile.js', 'lib/commands/dist-tag.js', 'src/distance.ts', 'distribution/notes.md', 'src/admin.js']) {
    assert.ok(!isBuildOutput(path), path);
  }
});

test("another project's code committed into this one is vendored for search too; an installed package's dependencies are not", () => {
  for (const path of ['vendor/github.com/pkg/errors/errors.go', 'third_party/zlib/inflate.c', 'deps/jemalloc/src/arena.c']) {
    assert.ok(isVendored(path), path);
  }
  // npm's own package, opened as it is: its dependencies are the code asked about.
  for (const path of ['node_modules/semver/functions/satisfies.js', 'web/bower_components/jquery/jquery.js', 'deps/deps.go', 'src/vendors.ts']) {
    assert.ok(!isVendored(path), path);
  }
});
