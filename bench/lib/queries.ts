// The query sets the speed benchmarks share: 16 per corpus, 4 of each kind; and queries typed into
// the quick pick, a keystroke at a time.

export type QueryKind = 'identifier' | 'question' | 'phrase' | 'typo';

export interface Query {
  kind: QueryKind;
  text: string;
}

export const q = (kind: QueryKind, ...texts: string[]): Query[] => texts.map((text) => ({ kind, text }));

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
