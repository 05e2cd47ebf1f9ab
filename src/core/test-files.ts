// Which files are tests, by the names the languages' test tools give them. A test describes the
// behaviour it checks in the words an issue uses (`test('a corrupt index is moved aside and
// rebuilt')`, `def test_rebuilds_corrupt_index`), so its words match an issue as well as the code
// that has the behaviour, often better; and the fix an issue asks for is in that code.

/** Folders that hold tests and their data, whatever the language: `test/`, Maven's `src/test/`, Go's `testdata/`, Jest's `__tests__/`. */
const TEST_FOLDER = /(?:^|[\\/])(?:tests?|__tests__|specs?|testdata|fixtures|__fixtures__|__mocks__)[\\/]/i;

/**
 * Test files by name: `*.test.ts` and `*.spec.js` (JavaScript), `*_test.go`, `test_*.py`,
 * `*_test.py` and `conftest.py`, `*_spec.rb`, `*_test.cc` and `*_unittest.cc`, and a class named
 * for what it tests (`ParserTest.java`, `ArrayTests.cs`, `ModelTestCase.php`, `RouterSpec.groovy`).
 * Not `npm-test.md` or `ci-test.js`: a hyphen names commands and topics as often as tests.
 */
const TEST_FILE = new RegExp(
  [
    String.raw`\.(?:test|spec)\.[^\\/]+$`,
    String.raw`_(?:test|spec|unittest)\.[^\\/.]+$`,
    String.raw`(?:^|[\\/])test_[^\\/]+\.py$`,
    String.raw`(?:^|[\\/])conftest\.py$`,
    String.raw`[a-z0-9](?:Test|Tests|TestCase|Spec)\.(?:java|kt|kts|scala|groovy|cs|php|swift)$`,
  ].join('|'),
);

/** Whether the file at `relPath` (relative to its root) is a test or test data. */
export function isTestFile(relPath: string): boolean {
  return TEST_FOLDER.test(relPath) || TEST_FILE.test(relPath);
}
