// What the in-host test runner (test/integration/index.ts, inside VS Code) tells the runner outside
// (run-tests.ts or run-electron.ts), through environment variables the outside runner sets.

/**
 * When set, every line of reporter output starts with this value. Through code-server the console
 * is the only live channel out of the extension host, and it arrives mixed with the workbench's own
 * log; the marker tells test output apart.
 */
export const OUTPUT_PREFIX_ENV = 'FUSED_SEARCH_TEST_OUTPUT_PREFIX';

/** Names the JSON file that receives the suite's `Counts` once it has run. */
export const RESULTS_FILE_ENV = 'FUSED_SEARCH_TEST_RESULTS';

export interface Counts {
  passed: number;
  failed: number;
}
