import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTestFile } from '../../src/core/test-files.ts';

test('test files are told by the names test tools give them, in every language', () => {
  for (const path of [
    'test/unit/store.test.ts',
    'src/parser.spec.js',
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
  ]) {
    assert.ok(isTestFile(path), `${path} is a test file`);
  }
});

test('code and documents whose names only mention tests are not test files', () => {
  for (const path of [
    'src/core/store.ts',
    'docs/content/commands/npm-test.md',
    'lib/commands/install-ci-test.js',
    'lib/rule-tester/rule-tester.js',
    'src/testing.ts',
    'src/contest.py',
    'cmd/attest/main.go',
    'src/main/java/com/acme/Latest.java',
  ]) {
    assert.ok(!isTestFile(path), `${path} is not a test file`);
  }
});
