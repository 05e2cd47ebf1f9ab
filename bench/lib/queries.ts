// The query sets the speed benchmarks share: 16 per corpus, 4 of each kind; and queries typed into
// the quick pick, a keystroke at a time.

export type QueryKind = 'identifier' | 'question' | 'phrase' | 'typo';

export interface Query {
  kind: QueryKind;
  text: string;
}

export const q = (kind: QueryKind, ...texts: string[]): Query[] => texts.map((text) => ({ kind, text }));

/** The 16 queries `bench:speed` and `bench:saves` ask of npm's tree. */
export const NPM_QUERIES: Query[] = [
  ...q('identifier', 'buildIdealTree', 'loadVirtual', 'getCredentialsByURI', 'npm_config_cache'),
  ...q(
    'question',
    'how are lifecycle scripts run',
    'where is the cache cleaned',
    'how does npm resolve a peer dependency conflict',
    'what happens when the registry returns 404',
  ),
  ...q('phrase', 'peer dependency', 'package-lock file', 'lifecycle scripts', 'global install'),
  ...q('typo', 'depndency tree', 'registy auth token', 'lifecyle scripts', 'instal global package'),
];

export const LINUX_QUERIES: Query[] = [
  ...q('identifier', 'spin_lock_irqsave', 'copy_from_user', 'kmalloc', 'schedule_timeout'),
  ...q(
    'question',
    'how does the scheduler pick the next task',
    'free memory when the device is removed',
    'where are page faults handled',
    'how is the watchdog timer reset',
  ),
  ...q('phrase', 'page fault', 'memory barrier', 'interrupt handler', 'reference count'),
  ...q('typo', 'schedular next task', 'interupt handler', 'alocate buffer', 'spinlok contention'),
];

/** What `bench:query` asks of the kernel's tree, one list a kind; `bench:soak` asks them and more. */
export const LINUX_BENCH_IDENTIFIERS = [
  'kmalloc',
  'spin_lock_irqsave',
  'task_struct',
  'copy_from_user',
  'list_for_each_entry',
  'mutex_lock',
  'GFP_KERNEL',
  'sk_buff',
  'ioremap',
  'init_waitqueue_head',
  'rcu_read_lock',
  'EXPORT_SYMBOL_GPL',
  'pci_register_driver',
  'dma_alloc_coherent',
  'container_of',
];

export const LINUX_BENCH_PHRASES = [
  'page fault handler',
  'memory barrier',
  'red black tree',
  'network namespace',
  'block device',
  'virtual file system',
  'interrupt handler',
  'power management',
];

export const LINUX_BENCH_TYPOS = ['schedular', 'spinlcok', 'interupt handler', 'kmaloc', 'semaphor', 'filesytem mount', 'prcoess exit', 'netwrok device'];

export const LINUX_BENCH_QUESTIONS = [
  'how does the scheduler pick the next task',
  'allocate memory in interrupt context',
  'where are page faults handled',
  'how to register a character device',
  'what happens when a process exits',
  'flush the tlb after changing page tables',
  'read the cpu temperature sensor',
  'how is the dentry cache invalidated',
];

/**
 * Questions of five to nine words on the kernel's tree, as people and agents ask them: the 8 of
 * `bench:query`, two of the 16 above, the queries of `bench/agent-bytes.ts`'s 10 held-out kernel
 * questions and 12 more, written down before they were first run. The 16 above hold few such
 * questions, which a big index answers by its slowest paths (the samples of `search/lists.ts`).
 */
export const LINUX_QUESTIONS = [
  ...LINUX_BENCH_QUESTIONS,
  'free memory when the device is removed',
  'how is the watchdog timer reset',
  'panic timeout reboot after seconds',
  'fork too many processes RLIMIT_NPROC check',
  'hung task blocked for more than seconds warning',
  'soft lockup detection threshold',
  'kthread stop wake up and wait for exit',
  'kill all other threads in the thread group',
  'pid wrap around pid_max',
  'cpu time limit exceeded send SIGXCPU',
  'unknown kernel command line parameter',
  'scheduling while atomic bug',
  'the device is not ready when the driver is probed',
  'lock is held when the list is freed',
  'what is the default value of the timeout',
  'free the buffer when the device is closed',
  'return an error if the user passes an invalid flag',
  'the page is locked while it is written back',
  'how is the reference count dropped when the file is closed',
  'the interrupt is disabled before the handler is removed',
  'check that the buffer is large enough for the header',
  'wake up the waiting thread when the queue is empty',
  'retry the transfer if the bus is busy',
  'set the clock rate when the device is resumed',
];

/**
 * Queries typed into the quick pick, which searches at every keystroke: every prefix of each is a
 * search (`i`, `in`, `ins`, … `install dependencies`). Mostly half-typed words, which only the
 * trigram list's substrings can match. `bench:extension` types these on any tree.
 */
export const TYPED_QUERIES = ['install dependencies', 'package lock file', 'registry auth token', 'workspace config'];

/** What someone types into the quick pick on the kernel's tree. */
export const LINUX_TYPED_QUERIES = ['spin_lock_irqsave', 'copy_from_user', 'struct file_operations', 'how does the scheduler work'];

/** Every prefix of each typed query, in the order a person types them. */
export function keystrokes(queries: readonly string[]): string[] {
  return queries.flatMap((query) => Array.from({ length: query.length }, (_, n) => query.slice(0, n + 1)));
}
