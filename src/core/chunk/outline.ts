// JSON and YAML are chunked by key path (`scripts > build`, `compilerOptions > strict`): the
// scanners in json.ts and yaml.ts reduce a file to an outline of keys with line ranges, and this
// module packs that outline under the byte cap. Small neighbouring keys share a chunk, a key too
// big for one chunk is opened and its own keys packed the same way.
//
// Kind is `code`, not `prose`: titles are key paths, which behave like symbol paths (exact
// identifiers a person types), and the text is identifiers and values, not sentences (see
// languageKind in language.ts).

import type { ChunkDraft } from '../types.ts';
import { emitRange } from './byte-cap.ts';
import { rangeBytes, shortLabel, type SourceLines } from './lines.ts';

export interface Outline {
  /** A key, `[i]` for a sequence item, or `document n` for one of several YAML documents. */
  label: string;
  /** 0-based, inclusive. */
  start: number;
  end: number;
  /** Empty for scalars and for values nested deeper than OUTLINE_MAX_DEPTH. */
  children: Outline[];
  /** Whether children are sequence items, titled as a range (`[0–12]`) when grouped. */
  sequence: boolean;
  /** A sequence item's name, the value of its first naming member (`nameItem`); titles use it in place of `[i]`. */
  name?: string;
}

/**
 * The members whose value says what a sequence item is: a workflow step's or a Kubernetes
 * container's `name`, a manual section's `title` (jq's manual is a list of `title:`/`body:`
 * items), a VS Code command's `title`. Titled `sections > [10] > entries > [0–2]`, a chunk said
 * nothing of what it holds, and a question's words never matched its title.
 */
const NAMING_KEYS = new Set(['name', 'title', 'id', 'key', 'label']);

/**
 * Names `item` by its member `key: value` when `key` is a naming key, `value` holds a letter (an
 * `id: 7` names nothing a person types) and no earlier member named it.
 */
export function nameItem(item: Outline, key: string, value: string): void {
  if (item.name === undefined && NAMING_KEYS.has(key) && /\p{L}/u.test(value)) item.name = shortLabel(value, 60);
}

/**
 * Scanners record keys down to this depth only; deeper values stay inside their ancestor's lines.
 * It also bounds the recursion below, so 10,000 levels of nesting cost no stack.
 */
export const OUTLINE_MAX_DEPTH = 32;

interface Unit {
  members: Outline[];
  start: number;
  end: number;
}

export function chunkOutline(src: SourceLines, root: Outline, maxBytes: number): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  const last = src.lines.length - 1;
  if (root.children.length === 0) emitRange(out, src, 0, last, src.fileName, 'code', maxBytes);
  else packMembers(out, src, root, 0, last, [], maxBytes);
  return out;
}

/**
 * Lines scopeStart..scopeEnd are shared out among the members of `parent` so that every line
 * belongs to exactly one chunk: lines before a member (its comments, the opening brace) go with
 * it, lines after the last member (the closing brace) go with the last. Members that share a line
 * cannot be separated and travel together.
 */
function packMembers(
  out: ChunkDraft[],
  src: SourceLines,
  parent: Outline,
  scopeStart: number,
  scopeEnd: number,
  path: readonly string[],
  maxBytes: number,
): void {
  const units = toUnits(parent.children, scopeStart, scopeEnd);
  let group: Unit[] = [];
  const flush = (): void => {
    if (group.length === 0) return;
    const first = group[0] as Unit;
    const end = (group[group.length - 1] as Unit).end;
    const members = group.flatMap((u) => u.members);
    const whole = path.length === 0 && members.length === parent.children.length;
    const title = whole ? src.fileName : [...path, summary(members, parent.sequence)].join(' > ');
    emitRange(out, src, first.start, end, title, 'code', maxBytes);
    group = [];
  };
  for (const unit of units) {
    if (rangeBytes(src, unit.start, unit.end) > maxBytes) {
      flush();
      const only = unit.members.length === 1 ? unit.members[0] : undefined;
      if (only && only.children.length > 0) {
        packMembers(out, src, only, unit.start, unit.end, [...path, only.name ?? only.label], maxBytes);
      } else {
        emitRange(out, src, unit.start, unit.end, [...path, summary(unit.members, parent.sequence)].join(' > '), 'code', maxBytes);
      }
    } else if (group.length > 0 && rangeBytes(src, (group[0] as Unit).start, unit.end) <= maxBytes) {
      group.push(unit);
    } else {
      flush();
      group.push(unit);
    }
  }
  flush();
}

function toUnits(members: readonly Outline[], scopeStart: number, scopeEnd: number): Unit[] {
  const units: Unit[] = [];
  for (const member of members) {
    const previous = units[units.length - 1];
    if (previous && member.start <= previous.end) {
      previous.members.push(member);
      previous.end = Math.max(previous.end, member.end);
    } else {
      units.push({ members: [member], start: previous ? previous.end + 1 : scopeStart, end: member.end });
    }
  }
  const lastUnit = units[units.length - 1];
  if (lastUnit) lastUnit.end = Math.max(lastUnit.end, scopeEnd);
  return units;
}

/**
 * `name`, `name, version, scripts`, `name, version, scripts, …`; sequence items by their names
 * when each has one (`Checkout, Run the tests`), else `[3]` or `[3–9]`.
 */
function summary(members: readonly Outline[], sequence: boolean): string {
  const named = !sequence || members.every((m) => m.name !== undefined);
  if (!named) {
    const first = (members[0] as Outline).label;
    const last = (members[members.length - 1] as Outline).label;
    return members.length === 1 ? first : `${first.slice(0, -1)}–${last.slice(1)}`;
  }
  // Names run longer than keys (`Fused Search: Rebuild the Index`): three in full would make a title of a paragraph.
  const shown = members
    .slice(0, 3)
    .map((m) => (m.name !== undefined && members.length > 1 ? shortLabel(m.name, 32) : (m.name ?? m.label)))
    .join(', ');
  return members.length > 3 ? `${shown}, …` : shown;
}
