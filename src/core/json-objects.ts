// The JSON objects in a pasted text: a debug response copied from a browser, an error tracker's
// event, a JSON log line after its timestamp, or only the part of one that was selected. A text is
// JSON only here and there, so each object its braces enclose is tried as a document, outermost
// first; where the whole does not parse (cut off at the start or the end), the complete objects
// inside it still count.

/** Objects tried as documents, at most: a text of code with a thousand braces costs no more. */
const MAX_TRIES = 200;
/** Objects walked, at most, and how deep: an event with its local variables can nest far. */
const MAX_OBJECTS = 5_000;
const MAX_DEPTH = 32;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Every object in the text's JSON documents, outer before inner and in the order the text has them. */
export function jsonObjects(text: string): JsonObject[] {
  const objects: JsonObject[] = [];
  let readUpTo = 0;
  let tries = 0;
  for (const [open, close] of bracePairs(text)) {
    if (open < readUpTo) continue;
    if (tries++ >= MAX_TRIES || objects.length >= MAX_OBJECTS) break;
    const parsed = parse(text.slice(open, close + 1));
    if (parsed === undefined) continue;
    collect(parsed, objects, 0);
    readUpTo = close + 1;
  }
  return objects.slice(0, MAX_OBJECTS);
}

/** What JSON has outside its strings: punctuation, white space, numbers, `true`, `false` and `null`. */
const OUTSIDE_STRINGS = new Set('{}[],: \t\r\n0123456789.+-eEtrufalsn');

/**
 * Each `{` and the `}` that closes it, outer before inner, in passes over the text that each start
 * at a `{` and read as JSON reads: braces in strings do not count, and a pass ends at what JSON
 * cannot hold (a word of prose or code outside a string, a line break in one), where the next `{`
 * starts a fresh one. So every character is read once, a text cut in the middle of a string reads
 * right from its next object, and a brace never closed (a report cut short) leaves the pairs inside
 * it whole.
 */
function bracePairs(text: string): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  let at = text.indexOf('{');
  while (at >= 0) {
    const opened: number[] = [];
    let inString = false;
    for (; at < text.length; at++) {
      const char = text[at]!;
      if (inString) {
        if (char === '\\') at++;
        else if (char === '"') inString = false;
        else if (char === '\n') break;
      } else if (char === '"') {
        inString = true;
      } else if (!OUTSIDE_STRINGS.has(char)) {
        break;
      } else if (char === '{') {
        opened.push(at);
      } else if (char === '}') {
        const open = opened.pop();
        if (open !== undefined) pairs.push([open, at]);
      }
    }
    at = text.indexOf('{', at + 1);
  }
  return pairs.sort((a, b) => a[0] - b[0]);
}

function parse(candidate: string): Json | undefined {
  try {
    return JSON.parse(candidate) as Json;
  } catch {
    return undefined;
  }
}

function collect(value: Json, into: JsonObject[], depth: number): void {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || into.length >= MAX_OBJECTS) return;
  if (!Array.isArray(value)) into.push(value);
  for (const inner of Array.isArray(value) ? value : Object.values(value)) collect(inner, into, depth + 1);
}
