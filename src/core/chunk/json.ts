// Reads a JSON file into an outline of keys with line ranges. JSON.parse gives no positions, so
// this is a small validating parser of its own. It accepts JSONC (comments, trailing commas)
// because tsconfig.json and VS Code settings are written that way, and rejects everything else so
// that broken JSON falls back to line windows. It keeps its own stack instead of recursing:
// 10,000 nested arrays are valid JSON.

import { shortLabel } from './lines.ts';
import { nameItem, OUTLINE_MAX_DEPTH, type Outline } from './outline.ts';

interface Frame {
  close: number;
  /** The key or item whose value this container is; null beyond OUTLINE_MAX_DEPTH. */
  owner: Outline | null;
  /** Whether `owner` is an array's item, which its members' values may name (`nameItem`). */
  ownerIsItem: boolean;
  /** The member being read, so its end line can be set when its value ends. */
  current: Outline | null;
  count: number;
}

const STRING = /"(?:[^"\\\n]|\\.)*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const QUOTE = 0x22;

/** The outline of a JSON/JSONC text, or null if it is not valid JSONC. */
export function outlineJson(text: string): Outline | null {
  let i = 0;
  let row = 0;
  const n = text.length;

  /** Skips whitespace and comments; false on an unterminated block comment. */
  const skip = (): boolean => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) row++;
      else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
        const eol = text.indexOf('\n', i);
        i = eol < 0 ? n : eol;
        continue;
      } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
        const close = text.indexOf('*/', i + 2);
        if (close < 0) return false;
        for (let k = text.indexOf('\n', i); k >= 0 && k < close; k = text.indexOf('\n', k + 1)) row++;
        i = close + 2;
        continue;
      } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return true;
      i++;
    }
    return true;
  };
  const match = (pattern: RegExp): string | null => {
    pattern.lastIndex = i;
    const found = pattern.exec(text);
    if (!found) return null;
    i = pattern.lastIndex;
    return found[0];
  };

  const root: Outline = { label: '', start: 0, end: 0, children: [], sequence: false };
  const stack: Frame[] = [];
  // What the next token must be: a value, a key (or the end of an object), or a comma/closer.
  let expect: 'value' | 'key' | 'after' = 'value';
  let rootDone = false;

  const valueEnded = (): void => {
    const top = stack[stack.length - 1];
    if (top) {
      if (top.current) top.current.end = row;
    } else {
      root.end = row;
      rootDone = true;
    }
  };

  while (true) {
    if (!skip()) return null;
    if (i >= n) break;
    if (rootDone) return null;
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (expect === 'after') {
      if (!top) return null;
      if (c === COMMA) {
        i++;
        expect = top.close === CLOSE_BRACE ? 'key' : 'value';
        continue;
      }
      if (c !== top.close) return null;
      i++;
      stack.pop();
      valueEnded();
      expect = 'after';
      continue;
    }
    if (expect === 'key') {
      if (!top) return null;
      if (c === CLOSE_BRACE) {
        // An empty object, or a trailing comma as JSONC allows.
        i++;
        stack.pop();
        valueEnded();
        expect = 'after';
        continue;
      }
      if (c !== QUOTE) return null;
      const start = row;
      const key = match(STRING);
      if (key === null || !skip() || text.charCodeAt(i) !== COLON) return null;
      i++;
      top.current = top.owner ? member(top, keyLabel(key), start) : null;
      expect = 'value';
      continue;
    }
    // A value.
    if (top && top.close === CLOSE_BRACKET) {
      if (c === CLOSE_BRACKET) {
        i++;
        stack.pop();
        valueEnded();
        expect = 'after';
        continue;
      }
      top.current = top.owner ? member(top, `[${top.count}]`, row) : null;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const owner = top ? top.current : root;
      if (!top) root.start = row;
      if (owner) owner.sequence = c === OPEN_BRACKET;
      const deepEnough = stack.length >= OUTLINE_MAX_DEPTH;
      stack.push({
        close: c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET,
        owner: deepEnough ? null : owner,
        ownerIsItem: top?.close === CLOSE_BRACKET,
        current: null,
        count: 0,
      });
      i++;
      expect = c === OPEN_BRACE ? 'key' : 'value';
      continue;
    }
    if (!top) root.start = row;
    const scalar = c === QUOTE ? match(STRING) : c === 0x2d || (c >= 0x30 && c <= 0x39) ? match(NUMBER) : match(LITERAL);
    if (scalar === null) return null;
    if (c === QUOTE && top?.ownerIsItem && top.owner && top.current) nameItem(top.owner, top.current.label, stringValue(scalar));
    valueEnded();
    expect = 'after';
  }
  return rootDone ? root : null;
}

function member(frame: Frame, label: string, start: number): Outline {
  const created: Outline = { label, start, end: start, children: [], sequence: false };
  frame.owner?.children.push(created);
  frame.count++;
  return created;
}

function keyLabel(token: string): string {
  return shortLabel(stringValue(token), 60) || '""';
}

/** A string token's text, or the token as written when JSON.parse refuses one of its escapes (`\x`). */
function stringValue(token: string): string {
  try {
    return JSON.parse(token) as string;
  } catch {
    return token;
  }
}
