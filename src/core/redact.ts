// Secret-looking text, redacted from everything that leaves for an agent (the MCP tools, the
// language model tool, the CLI's output): well-known key formats, private key blocks, passwords
// in connection strings, and high-entropy values assigned to names such as `password` or
// `api_key`. The index keeps the text as it is; only answers are redacted, so a person searching
// their own folder still finds the line, and an agent learns that a secret is there without it.
//
// A redaction keeps the line and its key name and replaces the value with a marker that says what
// it looked like (`API_KEY=[redacted: openai key]`), so line numbers, excerpts and the code's
// meaning survive. The patterns are line-local except private key blocks, which are followed from
// their BEGIN line to their END line. docs/architecture.md ("Secrets") lists what is matched.

/** What a redacted value looked like, as the marker names it. */
export type SecretKind =
  | 'private key'
  | 'key material'
  | 'aws access key id'
  | 'aws secret key'
  | 'github token'
  | 'gitlab token'
  | 'slack token'
  | 'slack webhook'
  | 'stripe key'
  | 'google api key'
  | 'openai key'
  | 'anthropic key'
  | 'npm token'
  | 'jwt'
  | 'password in url'
  | 'password'
  | 'authorization header'
  | 'secret value';

export interface Redaction {
  /** Lines changed. */
  lines: number;
  /** Each kind found, once, in order of first appearance. */
  kinds: SecretKind[];
  /**
   * The words (TOKEN) of the original text that the redaction removed: what a piece cut from the
   * text (a snippet that starts inside a value, without its key name) must not show either.
   */
  secrets: string[];
}

/** A word as `secrets` and snippet redaction see it: what lies between quotes, separators and brackets. */
const TOKEN = /[^\s"'`,;:=@()<>[\]{}…]{6,}/g;

/** Starts every marker; `[redacted: ` in an answer is how its notice counts what was redacted. */
const MARK = '[redacted';
const mark = (kind: SecretKind) => `${MARK}: ${kind}]`;
/** A line inside a private key block after the first: the block's first line says what it was. */
const BLOCK_MARK = `${MARK}]`;

/**
 * Tokens with a documented, recognisable shape. Ordered: a more specific shape first (an Anthropic
 * key also starts with `sk-`). Each pattern must match the secret alone, nothing around it.
 */
const TOKEN_PATTERNS: ReadonlyArray<{ kind: SecretKind; pattern: RegExp }> = [
  { kind: 'aws access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: 'github token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: 'gitlab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack token', pattern: /\bxox[abpros]-[A-Za-z0-9-]{10,}/g },
  { kind: 'slack webhook', pattern: /hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/g },
  { kind: 'stripe key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'google api key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'anthropic key', pattern: /\bsk-ant-[A-Za-z0-9_-]{32,}/g },
  { kind: 'openai key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}/g },
  { kind: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
];

/** Cheap first look: a line without any of these cannot match a token pattern (most lines). */
const TOKEN_HINT = /AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|glpat-|xox|hooks\.slack|_live_|_test_|AIza|sk-|npm_|eyJ/;

const BEGIN_PRIVATE = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;
const END_PRIVATE = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;
/** Lines a key block may span before an unmatched BEGIN is taken to run to the end of the text. */
const MAX_BLOCK_LINES = 200;
/** Base64 inside a key block: every run this long is key, short words (`Proc-Type: 4,ENCRYPTED`) are not. */
const BLOCK_RUN = /[A-Za-z0-9+/=]{16,}/g;
/**
 * A key block's body line without its BEGIN line (an excerpt or chunk that starts inside it): a
 * line that is nothing but 60–80 characters of base64 (PEM wraps at 64, OpenSSH at 70), maybe
 * quoted or with an escaped newline, with the spread of random bytes. Hex dumps (at most 4 bits a
 * character), text and long one-line blobs (an embedded wasm module) stay.
 */
const KEY_LINE = /^\s*["'`]?([A-Za-z0-9+/]{60,80}={0,2})(?:\\n)?["'`]?\s*[,+;\\]?\s*$/;
const KEY_RUN_MIN_ENTROPY = 4.8;
/** What a key block holds when it is a real key and not `XXXX` in an example. */
const KEY_MATERIAL = /[A-Za-z0-9+/]{16,}/g;
const BEGIN_PUBLIC = /-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|X509 CRL|CERTIFICATE REQUEST|PGP PUBLIC KEY BLOCK|PGP SIGNATURE)-----/;
const END_PUBLIC = /-----END (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|X509 CRL|CERTIFICATE REQUEST|PGP PUBLIC KEY BLOCK|PGP SIGNATURE)-----/;

/** `scheme://user:password@host`: the password part. */
const URL_PASSWORD = /\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}:\/\/[^\s:/@"'`<>]{1,100}:([^\s@/"'`<>]{1,200})@[^\s/"'`<>]/g;

/** A `.netrc` entry written out anywhere: `machine host login user password value`. */
const NETRC_PASSWORD = /\blogin\s+\S+\s+password\s+(\S+)/g;

/** An HTTP Authorization header's credentials (`Bearer …`, `Basic …`) written out in a file. */
const AUTH_HEADER = /\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/-]{20,}={0,2})/g;

/**
 * `name = value`, `name: value`, `"name": "value"`, `name := value`, `name => value`. The name is
 * judged by its pieces (secretName), the value by its shape (secretValue). The name is at most 100
 * characters long: unbounded, a line-long run of word characters with no `=` (a hex blob) was
 * read to its end from each of its characters, quadratic in its length (0.7 s at 32 KB, a
 * read_range at the 256 KB budget most of a minute).
 */
const ASSIGNMENT =
  /([A-Za-z_$][\w.$-]{0,99})["']?\s*(?::=|=>|[:=])\s*(?:"((?:[^"\\\n]|\\.){1,500})"|'((?:[^'\\\n]|\\.){1,500})'|`([^`\n]{1,500})`|([^\s"'`,;)}\]]{1,500}))/g;
const ASSIGNMENT_HINT = /pass|pwd|secret|token|key|auth|cred/i;

/** Name pieces that hold a secret wherever they stand in the name (`DB_PASSWORD`, `githubToken`). */
const SECRET_PIECES: ReadonlySet<string> = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'credential', 'credentials']);
/** Two pieces that do together (`api_key`, `clientSecret` is already `secret`). */
const SECRET_PAIRS: ReadonlySet<string> = new Set([
  'api key',
  'access key',
  'secret key',
  'private key',
  'signing key',
  'encryption key',
  'master key',
  'auth key',
  'session key',
]);
/** A last piece that makes the name about the secret, not the secret itself (`token_type`, `password_file`). */
const DESCRIPTIVE_PIECES: ReadonlySet<string> = new Set([
  'length',
  'len',
  'size',
  'type',
  'types',
  'file',
  'path',
  'dir',
  'name',
  'names',
  'url',
  'uri',
  'endpoint',
  'header',
  'field',
  'prompt',
  'label',
  'policy',
  'count',
  'min',
  'max',
  'format',
  'mode',
  'enabled',
  'required',
  'regex',
  'pattern',
  'expiry',
  'expires',
  'ttl',
  'timeout',
  'kind',
  'id',
  'ids',
  'env',
  'var',
  'source',
  'provider',
  'hash',
  'hashed',
  'algorithm',
  'algo',
  'bits',
  'index',
  'idx',
  'offset',
  'ptr',
  'buf',
  'fn',
  'func',
  'callback',
  'cb',
  'ops',
]);

/** Values that stand for a secret without being one: a template, a lookup, a sample. */
const PLACEHOLDER =
  /^(?:\$|%|<|\{\{|\[|\*{3})|changeme|change_me|example|placeholder|your[_-]?|xxxx|\*\*\*\*|dummy|sample|redacted|insert|replace|todo|fixme|process\.env|os\.environ|getenv|environ\[|env\(|\$\{|secret|token|passw|passphrase|credential/i;

const VALUE_MIN_CHARS = 8;
const VALUE_MIN_ENTROPY = 3;

/**
 * Redacts the secret-looking values of `text`, keeping every line (a redacted line keeps its key
 * name and gets a marker), so line numbers and ranges computed on the original still hold.
 */
export function redactText(text: string): { text: string } & Redaction {
  const lines = text.split('\n');
  const kinds = new Set<SecretKind>();
  let changed = 0;
  let publicBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (publicBlock) {
      if (END_PUBLIC.test(line)) publicBlock = false;
      continue;
    }
    const begin = BEGIN_PRIVATE.exec(line);
    const end = begin ? blockEnd(lines, i, begin.index + begin[0].length) : i;
    if (begin && holdsKeyMaterial(lines, i, end, begin.index + begin[0].length)) {
      if (end === i) {
        // BEGIN and END on one line (a key in a JSON string or an escaped literal), or a BEGIN on
        // the text's last line: everything from BEGIN to END, or to the end of the line, goes.
        const endMatch = END_PRIVATE.exec(line.slice(begin.index));
        const after = endMatch ? line.slice(begin.index + endMatch.index + endMatch[0].length) : '';
        lines[i] = line.slice(0, begin.index) + mark('private key') + after;
      } else {
        lines[i] = `${line.slice(0, begin.index)}${MARK}: private key, ${end - i + 1} lines]`;
        for (let j = i + 1; j <= end; j++)
          lines[j] = END_PRIVATE.test(lines[j]!) ? lines[j]!.replace(END_PRIVATE, BLOCK_MARK) : lines[j]!.replace(BLOCK_RUN, BLOCK_MARK);
      }
      kinds.add('private key');
      changed += end - i + 1;
      i = end;
      continue;
    }
    if (BEGIN_PUBLIC.test(line) && !END_PUBLIC.test(line)) {
      publicBlock = true;
      continue;
    }
    const redacted = redactLine(line, kinds);
    if (redacted !== line) {
      lines[i] = redacted;
      changed++;
    }
  }
  if (changed === 0) return { text, lines: 0, kinds: [], secrets: [] };
  const original = text.split('\n');
  const secrets = new Set<string>();
  lines.forEach((line, i) => {
    if (line === original[i]) return;
    const kept = new Set(line.match(TOKEN) ?? []);
    for (const token of original[i]!.match(TOKEN) ?? []) if (!kept.has(token)) secrets.add(token);
  });
  return { text: lines.join('\n'), lines: changed, kinds: [...kinds], secrets: [...secrets] };
}

/** Whether the block from `start` (after column `from`) to `end` holds base64 with the spread of a key. */
function holdsKeyMaterial(lines: readonly string[], start: number, end: number, from: number): boolean {
  const body = [lines[start]!.slice(from), ...lines.slice(start + 1, end + 1)].join('\n');
  return (body.match(KEY_MATERIAL) ?? []).some((run) => entropy(run) >= 3.5);
}

/** The line holding the END of the block that starts on line `start`, or the last line the block may reach. */
function blockEnd(lines: readonly string[], start: number, after: number): number {
  if (END_PRIVATE.test(lines[start]!.slice(after))) return start;
  const last = Math.min(lines.length - 1, start + MAX_BLOCK_LINES);
  for (let j = start + 1; j <= last; j++) if (END_PRIVATE.test(lines[j]!)) return j;
  return last;
}

function redactLine(line: string, kinds: Set<SecretKind>): string {
  let out = line;
  if (TOKEN_HINT.test(out)) {
    for (const { kind, pattern } of TOKEN_PATTERNS) {
      out = out.replace(pattern, () => {
        kinds.add(kind);
        return mark(kind);
      });
    }
  }
  if (out.length >= 60 && out.length <= 100) {
    const run = KEY_LINE.exec(out)?.[1];
    // Random base64 repeats characters (64 of them hold about 40 distinct); an alphabet table does not.
    if (run !== undefined && entropy(run) >= KEY_RUN_MIN_ENTROPY && new Set(run).size < 0.9 * run.length) {
      kinds.add('key material');
      out = out.replace(run, mark('key material'));
    }
  }
  if (out.includes('://')) {
    out = out.replace(URL_PASSWORD, (whole, password: string) => {
      if (password.startsWith(MARK) || PLACEHOLDER.test(password) || password.length < 3) return whole;
      kinds.add('password in url');
      const at = whole.lastIndexOf(`:${password}@`);
      return `${whole.slice(0, at + 1)}${mark('password in url')}${whole.slice(at + 1 + password.length)}`;
    });
  }
  if (out.includes('password ')) {
    out = out.replace(NETRC_PASSWORD, (whole, password: string) => {
      if (password.startsWith(MARK) || PLACEHOLDER.test(password)) return whole;
      kinds.add('password');
      return whole.slice(0, whole.length - password.length) + mark('password');
    });
  }
  if (out.includes('Bearer') || out.includes('Basic')) {
    out = out.replace(AUTH_HEADER, (whole, credentials: string) => {
      if (credentials.startsWith(MARK) || PLACEHOLDER.test(credentials) || entropy(credentials) < VALUE_MIN_ENTROPY + 0.5) return whole;
      kinds.add('authorization header');
      return whole.slice(0, whole.length - credentials.length) + mark('authorization header');
    });
  }
  if (ASSIGNMENT_HINT.test(out)) {
    out = out.replace(ASSIGNMENT, (whole: string, name: string, dq?: string, sq?: string, bq?: string, bare?: string) => {
      const value = dq ?? sq ?? bq ?? bare ?? '';
      // A value that repeats its own name (`cipher_auth := "cipher_auth="`) is a format, not a secret.
      const kind =
        secretName(name) && secretValue(value, bare !== undefined) && !value.toLowerCase().includes(name.toLowerCase())
          ? /aws/i.test(name)
            ? 'aws secret key'
            : 'secret value'
          : undefined;
      if (kind === undefined) return whole;
      kinds.add(kind);
      const at = whole.lastIndexOf(value);
      return `${whole.slice(0, at)}${mark(kind)}${whole.slice(at + value.length)}`;
    });
  }
  return out;
}

/** Whether an assigned-to name says it holds a secret: by its pieces, split at `_`, `-`, `.` and camelCase. */
function secretName(name: string): boolean {
  const pieces = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = pieces.at(-1);
  if (last === undefined || DESCRIPTIVE_PIECES.has(last)) return false;
  if (pieces.some((piece) => SECRET_PIECES.has(piece))) return true;
  if (last === 'auth') return true;
  for (let i = 0; i + 1 < pieces.length; i++) if (SECRET_PAIRS.has(`${pieces[i]} ${pieces[i + 1]}`)) return true;
  return false;
}

/**
 * Whether an assigned value looks like a secret rather than code or a stand-in: long enough, not a
 * placeholder, with at least two kinds of character and the spread of a random string. A bare
 * (unquoted) value that reads as an identifier or an expression is code (`password = buf;`).
 */
function secretValue(value: string, bare: boolean): boolean {
  if (value.length < VALUE_MIN_CHARS || value.startsWith(MARK) || PLACEHOLDER.test(value)) return false;
  // Spaces make a sentence or an expression; a hex-escaped byte string is a test vector.
  if (/\s/.test(value) || /^\d+$/.test(value) || /^(?:\\x[0-9a-f]{2})+$/i.test(value)) return false;
  let classes = 0;
  if (/[a-z]/.test(value)) classes++;
  if (/[A-Z]/.test(value)) classes++;
  if (/\d/.test(value)) classes++;
  // Separators do not count: `use-credentials`, `auth-and-writes` are words.
  if (/[^A-Za-z0-9\-_./]/.test(value)) classes++;
  if (bare) {
    // Unquoted, it may be code: an expression, a reference (`forceAuth.token`), a keyword.
    if (/[\^()[\]{}<>|\\&*?;,`'"]/.test(value) || /^(?:true|false|null|none|nil|undefined)$/i.test(value)) return false;
    if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) || !/\d/.test(value) || !/[A-Za-z]/.test(value)) return false;
    // A bare word could be a variable (`password = buf1;`) or a value (`client_secret: Xq3…` in YAML
    // or .env): only the spread of a random string tells them apart.
    if (/^[A-Za-z_$][\w$]*$/.test(value)) return value.length >= 16 && classes >= 3 && entropy(value) >= VALUE_MIN_ENTROPY + 0.5;
  }
  return classes >= 2 && entropy(value) >= VALUE_MIN_ENTROPY;
}

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * How many redacted values `text` shows: what an answer's notice reports. A key block counts
 * once, by its first line's marker; the `[redacted]` of its other lines name no kind.
 */
export function redactionsIn(text: string): number {
  const named = `${MARK}: `;
  let count = 0;
  for (let at = text.indexOf(named); at !== -1; at = text.indexOf(named, at + named.length)) count++;
  return count;
}

/** The notice an answer ends with when it shows redacted values; at most NOTICE_MAX_BYTES. */
export function redactionNotice(redacted: number): string {
  if (redacted === 0) return '';
  return `[${redacted} value${redacted === 1 ? '' : 's'} redacted: ${redacted === 1 ? 'it' : 'they'} looked like secrets (keys, tokens, passwords). Secrets are never shown to agents; ask the user if one is needed.]\n`;
}

/** Room an answer keeps for its redaction notice, in UTF-8 bytes. */
export const NOTICE_MAX_BYTES = Buffer.byteLength(redactionNotice(99_999));

/**
 * The one call for text that leaves for an agent: redacts it and says how many values it
 * redacted, counting markers already in it (inputs redacted earlier, e.g. by `redactText` on a
 * whole chunk). Callers with a byte budget format within `budget - NOTICE_MAX_BYTES` and append
 * `redactionNotice(redacted)`; `agentText` does both.
 */
export function redactForAgent(text: string): { text: string; redacted: number } {
  const out = redactText(text).text;
  return { text: out, redacted: redactionsIn(out) };
}

/**
 * An answer for an agent within `budgetBytes`: `render` formats with the budget it is given, and
 * the result is redacted. An answer that shows redacted values is rendered again with room for
 * the notice that says so; one without costs a single render and no bytes.
 */
export function agentText(budgetBytes: number, render: (budgetBytes: number) => string): { text: string; redacted: number } {
  const first = redactForAgent(render(budgetBytes));
  if (first.redacted === 0 && Buffer.byteLength(first.text) <= budgetBytes) return first;
  const room = Math.max(0, budgetBytes - NOTICE_MAX_BYTES);
  const { text, redacted } = redactForAgent(render(room));
  // A marker is longer than a short password it replaces; inputs redacted before formatting (as
  // `redactResults` does) leave nothing to grow here, and this keeps the budget if some did not.
  return { text: withinBytes(text, room) + redactionNotice(redacted), redacted };
}

/** `text` cut after its last whole line within `max` UTF-8 bytes, if it is longer. */
function withinBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const cut = Buffer.from(text)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const end = cut.lastIndexOf('\n');
  return end === -1 ? '' : cut.slice(0, end + 1);
}

/**
 * Search results with their snippet and title redacted, for a formatter that shows them to an
 * agent. A snippet is a window cut from its chunk, maybe inside a value and without the key name
 * that marks it as a secret: given the chunk's text (`chunkText`), every word of the snippet that
 * is part of a value redacted in the whole chunk goes too. A changed snippet loses its match
 * ranges, which pointed into the old text.
 */
export function redactResults<T extends { snippet: string; title: string; matches: Array<[number, number]> }>(
  results: readonly T[],
  chunkText?: (result: T, index: number) => string | undefined,
): T[] {
  return results.map((result, index) => {
    const whole = chunkText?.(result, index);
    const secrets = whole === undefined ? [] : redactText(whole).secrets;
    let snippet = redactText(result.snippet).text;
    if (secrets.length > 0) snippet = snippet.replace(TOKEN, (word) => (secrets.some((secret) => secret.includes(word)) ? mark('secret value') : word));
    const title = redactText(result.title).text;
    if (snippet === result.snippet && title === result.title) return result;
    return { ...result, snippet, title, matches: snippet === result.snippet ? result.matches : [] };
  });
}

/** A chunk's or file's text redacted whole (a key block is followed across its lines), or undefined as given. */
export function redactedText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : redactText(text).text;
}
