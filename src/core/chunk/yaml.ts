// Reads YAML into an outline of keys with line ranges from indentation alone. A full YAML parser
// would give values we do not need and no line numbers; what chunking needs is where each key's
// block starts and ends, which indentation says. Line-based and iterative, so deep nesting costs
// no stack. Block scalars (`key: |`) are skipped so text inside them is never mistaken for keys.

import { isBlank, shortLabel, type SourceLines } from './lines.ts';
import { nameItem, OUTLINE_MAX_DEPTH, type Outline } from './outline.ts';

interface Open {
  /** Null when nested deeper than OUTLINE_MAX_DEPTH: tracked for indentation, not recorded. */
  node: Outline | null;
  column: number;
  item: boolean;
}

const KEY = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"{}[\],&*!|>%@`][^#]*?))[ \t]*:(?=[ \t]|$)/;
const DASH = /^-(?:[ \t]+|$)/;
const BLOCK_SCALAR = /^[|>][-+0-9]*[ \t]*(?:#.*)?$/;

export function outlineYaml(src: SourceLines): Outline {
  const lines = src.lines;
  const documents: Outline[] = [];
  let document: Outline | null = null;
  const stack: Open[] = [];
  let lastContent = -1;
  /** Lines indented more than this are the body of a block scalar; -1 outside one. */
  let blockColumn = -1;

  const close = (until: (open: Open) => boolean): void => {
    while (stack.length > 0 && until(stack[stack.length - 1] as Open)) {
      const open = stack.pop() as Open;
      if (open.node) open.node.end = Math.max(open.node.start, lastContent);
    }
  };
  const endDocument = (): void => {
    close(() => true);
    if (document) document.end = Math.max(document.start, lastContent);
    document = null;
  };
  const add = (label: string, row: number, column: number, item: boolean): void => {
    const top = stack[stack.length - 1];
    const parent = top ? top.node : document;
    let node: Outline | null = null;
    if (parent && stack.length < OUTLINE_MAX_DEPTH) {
      node = { label, start: row, end: row, children: [], sequence: false };
      parent.sequence = item;
      parent.children.push(node);
    }
    stack.push({ node, column, item });
  };

  for (let row = 0; row < lines.length; row++) {
    const line = lines[row] as string;
    if (isBlank(line)) continue;
    const column = line.search(/\S/);
    if (blockColumn >= 0) {
      if (column > blockColumn) {
        lastContent = row;
        continue;
      }
      blockColumn = -1;
    }
    if (line[column] === '#') continue;
    if (column === 0 && /^(?:---|\.\.\.)(?:\s|$)/.test(line)) {
      endDocument();
      if (line.startsWith('---')) document = newDocument(documents, row);
      lastContent = row;
      continue;
    }
    document ??= newDocument(documents, row);
    let at = column;
    let rest = line.slice(column);
    // `- - key: v` opens two items and a key, each at its own column.
    while (true) {
      const dash = DASH.exec(rest);
      if (dash) {
        close((open) => open.column > at || (open.column === at && open.item));
        const parent = stack[stack.length - 1];
        const index = parent ? (parent.node?.children.length ?? 0) : document.children.length;
        add(`[${index}]`, row, at, true);
        at += dash[0].length;
        rest = rest.slice(dash[0].length);
        if (rest.length === 0 || rest.startsWith('#')) break;
        if (BLOCK_SCALAR.test(rest)) {
          blockColumn = at - dash[0].length;
          break;
        }
        continue;
      }
      const key = KEY.exec(rest);
      if (key) {
        close((open) => open.column >= at);
        const keyText = key[1] ?? key[2] ?? key[3] ?? '';
        const value = rest.slice(key[0].length).trim();
        const holder = stack[stack.length - 1];
        if (holder?.item && holder.node) nameItem(holder.node, keyText, inlineScalar(value));
        add(shortLabel(keyText, 60), row, at, false);
        if (BLOCK_SCALAR.test(value)) blockColumn = at;
      }
      break;
    }
    lastContent = row;
  }
  endDocument();
  const root: Outline = { label: '', start: 0, end: lines.length - 1, children: [], sequence: false };
  if (documents.length === 1) {
    const only = documents[0] as Outline;
    root.children = only.children;
    root.sequence = only.sequence;
  } else {
    root.children = documents.filter((d) => d.children.length > 0 || d.end > d.start);
    root.children.forEach((d, i) => (d.label = `document ${i + 1}`));
  }
  return root;
}

/**
 * The text of a one-line scalar value (`Assignment`, `"Identity: \`.\`"`, `'it''s'`), or '' for
 * anything else: a block scalar, a flow collection, an anchor or alias, a tag, nothing.
 */
function inlineScalar(value: string): string {
  if (value.startsWith('"')) {
    const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(value);
    return quoted ? (quoted[1] as string).replace(/\\(.)/g, '$1') : '';
  }
  if (value.startsWith("'")) {
    const quoted = /^'((?:[^']|'')*)'/.exec(value);
    return quoted ? (quoted[1] as string).replace(/''/g, "'") : '';
  }
  if (/^[|>{[&*!#]/.test(value)) return '';
  return value.replace(/\s+#.*$/, '');
}

function newDocument(documents: Outline[], row: number): Outline {
  const document: Outline = { label: '', start: row, end: row, children: [], sequence: false };
  documents.push(document);
  return document;
}
