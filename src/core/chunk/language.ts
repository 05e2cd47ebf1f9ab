// Language ids as search filters and the result list show them. They are VS Code's language ids
// where VS Code has one, except `tsx`: TSX needs its own grammar and filter, and the engine's
// callers already name it so; and `.h`, which VS Code calls `cpp`, is `c`: most headers in the
// trees we index are C (code.ts recognises a C++ header by its content).

import type { ChunkKind } from '../types.ts';
import { baseName } from './lines.ts';

// The three tables keep one line per language, so its names read together; a formatter would give
// every name a line of its own.
// prettier-ignore
const BY_EXTENSION: Record<string, string> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  py: 'python', pyi: 'python', pyw: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', 'c++': 'cpp', hh: 'cpp', hpp: 'cpp', hxx: 'cpp', 'h++': 'cpp', ipp: 'cpp', inl: 'cpp',
  cs: 'csharp',
  rb: 'ruby', rake: 'ruby', gemspec: 'ruby',
  php: 'php', phtml: 'php',
  sh: 'shellscript', bash: 'shellscript', zsh: 'shellscript', ksh: 'shellscript',
  css: 'css', scss: 'scss', sass: 'sass', less: 'less',
  md: 'markdown', markdown: 'markdown', mdx: 'mdx', mdown: 'markdown', mkd: 'markdown',
  json: 'json', jsonc: 'jsonc', json5: 'json5', geojson: 'json', webmanifest: 'json',
  yaml: 'yaml', yml: 'yaml',
  toml: 'toml', ini: 'ini', cfg: 'ini', conf: 'properties', properties: 'properties',
  xml: 'xml', xsd: 'xml', xsl: 'xml', svg: 'xml', plist: 'xml', csproj: 'xml',
  html: 'html', htm: 'html', vue: 'vue', svelte: 'svelte',
  sql: 'sql',
  kt: 'kotlin', kts: 'kotlin', swift: 'swift', scala: 'scala', dart: 'dart', lua: 'lua',
  pl: 'perl', pm: 'perl', r: 'r', jl: 'julia', hs: 'haskell', ex: 'elixir', exs: 'elixir',
  erl: 'erlang', clj: 'clojure', fs: 'fsharp', vb: 'vb', m: 'objective-c', mm: 'objective-cpp',
  ps1: 'powershell', psm1: 'powershell', bat: 'bat', cmd: 'bat',
  rst: 'restructuredtext', tex: 'latex', adoc: 'asciidoc',
  s: 'asm', asm: 'asm', dts: 'dts', dtsi: 'dts',
  y: 'yacc', yy: 'yacc', l: 'lex',
  mk: 'makefile', cmake: 'cmake', dockerfile: 'dockerfile', tf: 'terraform', proto: 'proto3',
  graphql: 'graphql', gql: 'graphql',
  diff: 'diff', patch: 'diff', log: 'log', csv: 'csv', tsv: 'tsv', txt: 'plaintext',
};

// prettier-ignore
const BY_FILE_NAME: Record<string, string> = {
  makefile: 'makefile', gnumakefile: 'makefile', kbuild: 'makefile',
  kconfig: 'kconfig',
  dockerfile: 'dockerfile', containerfile: 'dockerfile',
  'cmakelists.txt': 'cmake',
  gemfile: 'ruby', rakefile: 'ruby', podfile: 'ruby', vagrantfile: 'ruby',
  '.bashrc': 'shellscript', '.bash_profile': 'shellscript', '.profile': 'shellscript', '.zshrc': 'shellscript',
  'tsconfig.json': 'jsonc', 'jsconfig.json': 'jsonc', '.eslintrc': 'jsonc', '.babelrc': 'jsonc',
  'package-lock.json': 'json',
};

// prettier-ignore
const BY_INTERPRETER: Record<string, string> = {
  sh: 'shellscript', bash: 'shellscript', zsh: 'shellscript', dash: 'shellscript', ksh: 'shellscript',
  python: 'python', python3: 'python', python2: 'python',
  node: 'javascript', deno: 'typescript', 'ts-node': 'typescript', tsx: 'typescript',
  ruby: 'ruby', php: 'php', perl: 'perl',
};

/** Every language `detectLanguage` can answer. */
export const KNOWN_LANGUAGES: ReadonlySet<string> = new Set([
  'plaintext',
  ...Object.values(BY_EXTENSION),
  ...Object.values(BY_FILE_NAME),
  ...Object.values(BY_INTERPRETER),
]);

/**
 * Languages whose text is written for people: documentation, markup, logs, data tables. Their
 * chunks are `prose`; everything else is `code`, including languages chunked by line windows for
 * want of a grammar (Kotlin, SQL, Makefiles) and configuration (JSON, YAML, TOML): a search
 * filtered to prose should return documentation, and one filtered to code should not miss a
 * Kotlin file because we cannot parse it.
 */
const PROSE_LANGUAGES = new Set(['markdown', 'mdx', 'plaintext', 'restructuredtext', 'latex', 'asciidoc', 'html', 'xml', 'log', 'csv', 'tsv']);

export function languageKind(language: string): ChunkKind {
  return PROSE_LANGUAGES.has(language) ? 'prose' : 'code';
}

/**
 * The language of a file from its path; files without a known extension are `plaintext`, unless
 * `firstLine` is a shebang that names an interpreter we know (scripts often have no extension).
 */
export function detectLanguage(relPath: string, firstLine?: string): string {
  const name = baseName(relPath).toLowerCase();
  const byName = BY_FILE_NAME[name];
  if (byName) return byName;
  // The kernel's `Kconfig.debug`, `Kconfig.hz`: a configuration menu whose extension names its topic.
  if (name.startsWith('kconfig.')) return 'kconfig';
  const dot = name.lastIndexOf('.');
  const byExtension = dot > 0 ? BY_EXTENSION[name.slice(dot + 1)] : undefined;
  if (byExtension) return byExtension;
  if (dot <= 0 && firstLine?.startsWith('#!')) {
    const match = /^#!\s*(?:\S*\/)?([\w.+-]+)(?:\s+(?:-\S+\s+)*([\w.+-]+))?/.exec(firstLine);
    const program = match?.[1] === 'env' ? match[2] : match?.[1];
    // `python3.11` is `python`.
    const byInterpreter = program ? (BY_INTERPRETER[program] ?? BY_INTERPRETER[program.replace(/[\d.]+$/, '')]) : undefined;
    if (byInterpreter) return byInterpreter;
  }
  return 'plaintext';
}
