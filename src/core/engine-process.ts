// How a Node process that runs the engine is started: the extension's engine worker, the CLI (whose
// launcher, bin/fused-search.cjs, keeps a copy of these settings, since it runs before any bundle)
// and the benchmarks. Both settings take effect only at process start, hence a process of the
// engine's own.

/**
 * V8 flags, which hold for a whole process:
 * - `--liftoff-only`: V8's optimising tier recompiles tree-sitter's huge parse functions as they
 *   get hot, one compile holding hundreds of megabytes, without parsing any faster (an index run
 *   peaked at 730 MB without the flag, about 190 MB with it).
 * - `--max-semi-space-size=4`: left to V8, the indexing thread's young generation grows past
 *   100 MB on a big tree, to save a little scavenging (the Linux tree's drivers/net/ethernet
 *   peaked at 452 MB, with the flag at 337 MB, for the same CPU time).
 * - `--heap-growing-percent=50`: left to V8, each thread's old generation grows to up to four times
 *   what survived its last full collection before collecting again. Every prepared batch passes
 *   through the indexing thread, whose heap reached 250 MB that way, mostly batches already
 *   written. With 1.5 times and the arenas below, the Linux tree's first index peaked at 500 MB
 *   instead of 667 MB, for the same CPU time; 1.2 times cost 14% more CPU.
 */
export const ENGINE_NODE_FLAGS: readonly string[] = ['--liftoff-only', '--max-semi-space-size=4', '--heap-growing-percent=50'];

/**
 * glibc's malloc settings, each unless the user set it (other C libraries ignore them):
 * - `MALLOC_ARENA_MAX=2`: every thread (indexing, preparing, writing; SQLite's caches, V8's
 *   compilers) otherwise gets arenas of its own, and memory freed in one is not reused by another:
 *   50–140 MB more at the peak of the Linux tree's first index.
 * - `MALLOC_MMAP_THRESHOLD_=131072`: glibc's own starting threshold, held there. Left alone, each
 *   big block freed raises it to that block's size, and later big blocks (a batch serialised for
 *   the writer's thread is megabytes) are carved from an arena that keeps them after they are
 *   freed. Held, blocks from 128 KB up go back to the system when freed: the Linux tree's first
 *   index peaked at 368 / 371 MB against 392 MB (with batches of 256 files: 413–416 MB against
 *   440–456 MB, three runs each), its CPU time within the runs' spread (330–373 s against 323–353 s).
 */
export function mallocSettings(env: NodeJS.ProcessEnv = process.env): { MALLOC_ARENA_MAX: string; MALLOC_MMAP_THRESHOLD_: string } {
  return { MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2', MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? '131072' };
}

/** The environment with `mallocSettings`. */
export function engineEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, ...mallocSettings(env) };
}
