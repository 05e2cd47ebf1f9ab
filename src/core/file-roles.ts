// What a file is for, where its path says it is not the code a question or a fix is about: a
// test, a file about the project rather than its code (issue templates, workflows, a code of
// conduct), a lockfile, another project's code kept in this one. A test describes the behaviour
// it checks in the words an issue or a question uses (`test('a corrupt index is moved aside and
// rebuilt')`, `def test_rebuilds_corrupt_index`); an issue template holds the headings the issue
// was written under ("Describe the bug", "Steps to reproduce"); a lockfile names every dependency
// an issue may mention; a vendored copy defines the library names an issue uses (ruff's copy of
// typeshed defines `builtins.open`, which a lint rule's issue names). Each matches an issue's words
// as well as the code does, often better, and so do an example and a benchmark, which use the
// project's names in small programs of their own. `locate` counts all five at half weight; search
// counts tests less (src/core/search/rerank.ts), a test module kept inside a code file too, a
// changelog (`isChangelog`), whose entries say what the code does in a question's words, a
// build's output (`isBuildOutput`), which says it again as the build wrote it, and another
// project's code committed into this one (`isVendored`).

export type FileRole = 'test' | 'project' | 'lockfile' | 'vendored' | 'example';

/**
 * Folders that hold tests and their data, whatever the language: `test/`, Maven's `src/test/`,
 * Go's `testdata/`, Jest's `__tests__/` and the `__snapshots__/` it writes beside a test; and a
 * folder whose name says `tests` among other words (terraform's `equivalence-tests/`, tokio's
 * `tests-build/`, immutable-js's `ts-tests/`, .NET's `Acme.Tests/`). Not the singular among
 * other words: fastlane's `test_flight/` is Apple's TestFlight, its code.
 */
const TEST_FOLDER = /(?:^|[\\/])(?:tests?|__tests__|specs?|testdata|fixtures|__fixtures__|__mocks__|__snapshots__|[^\\/]*[-_.]tests|tests[-_.][^\\/]*)[\\/]/i;
/** Xcode's test targets, named for the target they test: `AppTests/`, `AppUITests/`. */
const TEST_TARGET_FOLDER = /[A-Za-z0-9]Tests[\\/]/;

/**
 * Test files by name: `*.test.ts`, `*.spec.js` and tsd's `*.test-d.ts` (JavaScript), `*_test.go`,
 * `test_*.py`, `*_test.py` and `conftest.py`, `*_spec.rb`, `*_test.cc` and `*_unittest.cc`, and a
 * class named for what it tests (`ParserTest.java`, `ArrayTests.cs`, `ModelTestCase.php`,
 * `RouterSpec.groovy`), and a file whose extension says it is a test (sqlite's `*.test`, caddy's
 * `*.caddyfiletest`, a Caddyfile and the JSON it must adapt to; not `*.latest`).
 * Not `npm-test.md` or `ci-test.js`: a hyphen names commands and topics as often as tests.
 */
const TEST_FILE = new RegExp(
  [
    String.raw`\.(?:test|spec)(?:-d)?\.[^\\/]+$`,
    String.raw`_(?:test|spec|unittest)\.[^\\/.]+$`,
    String.raw`(?:^|[\\/])test_[^\\/]+\.py$`,
    String.raw`(?:^|[\\/])conftest\.py$`,
    String.raw`[a-z0-9](?:Test|Tests|TestCase|Spec)\.(?:java|kt|kts|scala|groovy|cs|php|swift)$`,
    String.raw`\.(?!latest$)[a-z]*test$`,
  ].join('|'),
);

/** How the project is run: its forge's and CI's folders, and the documents every project keeps beside its code. */
const PROJECT_FOLDER = /(?:^|[\\/])\.(?:github|gitlab|circleci)[\\/]/;
/** In capitals, as projects name them: `security.ts` is code. */
const PROJECT_FILE =
  /(?:^|[\\/])(?:CODE_OF_CONDUCT|CONTRIBUTING|SECURITY|SUPPORT|GOVERNANCE|ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)(?:\.(?:md|markdown|txt|rst|adoc))?$/;

/** The dependency records package managers write. */
const LOCKFILE =
  /(?:^|[\\/])(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|Gemfile\.lock|composer\.lock|go\.sum|poetry\.lock|Pipfile\.lock|uv\.lock|Podfile\.lock|mix\.lock|pubspec\.lock|packages\.lock\.json|flake\.lock)$/;

/**
 * Folders that hold other projects' code committed into this one, by every ecosystem's convention,
 * and C's `deps/` with a folder for each (redis's `deps/jemalloc/`, `deps/lua/`): a file right in
 * `deps/` is the project's own (hugo's `deps/deps.go`).
 */
const COMMITTED_VENDOR_FOLDER = /(?:^|[\\/])(?:(?:vendor|vendored|third[_-]?party)[\\/]|deps[\\/][^\\/]+[\\/])/i;

/**
 * The folders a package manager fills, which hold other projects' code too. A workspace indexes one
 * only when it is an installed package (npm's own, opened as it is) or when its owner asks to,
 * since every project ignores them; there the dependencies are the code being asked about.
 */
const INSTALLED_FOLDER = /(?:^|[\\/])(?:node_modules|bower_components)[\\/]/i;

/**
 * Whether the file at `relPath` is another project's code committed into this one: `vendor/`,
 * `third_party/`, redis's `deps/jemalloc/` (`COMMITTED_VENDOR_FOLDER`), not inside an installed
 * package (`INSTALLED_FOLDER`). Asked for redis's `command table lookup`, whose first word nearly
 * every chunk of redis holds, the first six results were `deps/fast_float`'s lookup tables.
 */
export function isVendored(relPath: string): boolean {
  return COMMITTED_VENDOR_FOLDER.test(relPath) && !INSTALLED_FOLDER.test(relPath);
}

/** Folders of code that shows or measures the project rather than being it: examples, demos and benchmarks. */
const EXAMPLE_FOLDER = /(?:^|[\\/])(?:examples?|demos?|samples?|bench|benches|benchmarks?)[\\/]/i;

/**
 * A test module inside a code file, by its place in a chunk's symbol path: Rust keeps a module's
 * unit tests in the module's own file (`#[cfg(test)] mod tests`), so bat's `src/assets.rs` holds
 * `get_syntax_for_path` and, below it, `tests > syntax_detection_first_line` and twenty more, each
 * named for what it checks. Asked how bat detects a file's syntax, all ten results were those
 * tests. Only as a container (`tests > …`): a function or method named `test` (`RegExp > test`) is code.
 */
const TEST_MODULE = /(?:^|> )tests? > /;

/** A Rust attribute that makes an item a test or test-only: `#[test]`, `#[tokio::test]`, `#[cfg(test)]`. */
const RUST_TEST_ATTRIBUTE = /^#\[(?:(?:\w+::)*test\b|cfg\(test\))/;
/** What may lead a Rust item above its signature: attributes, comments, blank lines. */
const RUST_ITEM_PREAMBLE = /^(?:#\[|\/\/|$)/;

/**
 * Whether a chunk is a test: in a test file, in a test module of a code file (`TEST_MODULE`), or a
 * Rust item marked as one, as ripgrep's `#[cfg(test)] #[test] fn test_smart_case` beside the flag's
 * definition. Only the attributes leading the chunk count: a file's top level that declares `#[cfg(test)]
 * mod tests;` is code.
 */
export function isTest(relPath: string, title: string, text: string): boolean {
  return TEST_MODULE.test(title) || (relPath.endsWith('.rs') && ledByTestAttribute(text)) || fileRole(relPath) === 'test';
}

function ledByTestAttribute(text: string): boolean {
  for (const line of text.split('\n', 12)) {
    const trimmed = line.trim();
    if (RUST_TEST_ATTRIBUTE.test(trimmed)) return true;
    if (!RUST_ITEM_PREAMBLE.test(trimmed)) return false;
  }
  return false;
}

/**
 * A project's record of its changes: `CHANGELOG.md`, `History.markdown`, `NEWS`, `RELEASES.rst`,
 * Debian's `changelog`, an older record kept apart (fmt's `ChangeLog-old.md`, `CHANGES-2.x.md`),
 * and the folders that hold a release's entries one file each (`changelog/`, `changelog.d/`,
 * towncrier's `newsfragments/`, `.changeset/`). Prose only by name: `history.ts` is code. An entry
 * says in a line what a change did in the words a question about the feature uses
 * (`in_tail: Fix detecting rotation twice on follow_inode`), and a long-lived project's record
 * mentions every feature many times over: asked how fluentd's `in_tail` detects a log rotation,
 * the first result and two more were its changelog's entries.
 */
const CHANGELOG_FILE =
  /(?:^|[\\/])(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASES|RELEASE[-_]NOTES)(?:[-_](?:old|legacy|archive|v?\d[\w.]*))?(?:\.(?:md|markdown|rst|txt|adoc|org))?$/i;
const CHANGELOG_FOLDER = /(?:^|[\\/])(?:changelogs?|changelog\.d|newsfragments|\.changeset|release[-_]?notes)[\\/]/i;

/** Whether the file at `relPath` records the project's changes (`CHANGELOG_FILE`, `CHANGELOG_FOLDER`). */
export function isChangelog(relPath: string): boolean {
  return CHANGELOG_FILE.test(relPath) || CHANGELOG_FOLDER.test(relPath);
}

/**
 * What a build wrote: a `dist/` folder's bundles, and minified files. A project that commits its
 * builds holds each function twice or more, the bundle's copy renamed or reshaped by the bundler
 * (axios's `Axios > _request` in `lib/core/Axios.js`, `dist/browser/axios.cjs` and, as `Axios$1 >
 * _request`, `dist/esm/axios.js`), which no copy folding can tell is the same function. Asked for
 * axios's `timeout error code ECONNABORTED`, the first three results were its bundles. Not `build/`
 * or `out/`: projects keep their build's own scripts there as often as its output.
 */
const BUILD_OUTPUT = /(?:^|[\\/])dist[\\/]|\.min\.(?:js|mjs|cjs|css)$/;

/** Whether the file at `relPath` is a build's output (`BUILD_OUTPUT`). */
export function isBuildOutput(relPath: string): boolean {
  return BUILD_OUTPUT.test(relPath);
}

/** The role of the file at `relPath` (relative to its root), or undefined for code and documents. */
export function fileRole(relPath: string): FileRole | undefined {
  if (TEST_FOLDER.test(relPath) || TEST_TARGET_FOLDER.test(relPath) || TEST_FILE.test(relPath)) return 'test';
  if (PROJECT_FOLDER.test(relPath) || PROJECT_FILE.test(relPath)) return 'project';
  if (LOCKFILE.test(relPath)) return 'lockfile';
  if (COMMITTED_VENDOR_FOLDER.test(relPath) || INSTALLED_FOLDER.test(relPath)) return 'vendored';
  if (EXAMPLE_FOLDER.test(relPath)) return 'example';
  return undefined;
}
