// What counts as a symbol in each language, by tree-sitter node type. A symbol is what a person
// would name when asked where something is: a function, a class, a method, a struct. Everything
// else (imports, statements, fields, one-line declarations) is the code around symbols and is
// chunked as such, never dropped.

import type { Node } from '@vscode/tree-sitter-wasm';
import { shortLabel } from './lines.ts';
import type { SkeletonMode } from './skeleton.ts';

/**
 * leaf: one chunk (cut by lines only if over the cap).
 * container: one chunk if it fits, else a header chunk plus its members (a class and its methods).
 * scope: never a chunk of its own; its members are chunked with its name, if any, in their path
 *   (a namespace; `extern "C" {`).
 * transparent: its children are looked at as if they stood in its place (`#ifdef`, ERROR nodes).
 * wrapper: stands for the symbol it wraps, covering the wrapper's lines (`export`, decorators, templates).
 */
export type Role = 'leaf' | 'container' | 'scope' | 'transparent' | 'wrapper';

export interface NodeRule {
  role: Role;
  /**
   * Node types that are usually one-liners (declarations, macros) are symbols only when they span
   * at least this many lines; shorter ones stay with the surrounding code.
   */
  minLines?: number;
}

export interface CodeLanguage {
  /** Base name of the grammar's wasm file: tree-sitter-<grammar>.wasm. */
  grammar: string;
  rules: Readonly<Record<string, NodeRule>>;
  /** A name for node types the generic rules (field `name`, then the declarator chain) get wrong. */
  name?: (node: Node) => string | undefined;
  /** Parse C/C++ with function bodies hidden from the parser (see skeleton.ts). */
  skeleton?: SkeletonMode;
  /**
   * The node holding a container's members, for containers the generic rule (a `body` field, else
   * a last child that is a block) does not find; undefined to use that rule.
   */
  members?: (node: Node) => Node | null | undefined;
}

/** Node types that belong to the symbol right below them when they sit on the lines just above it. */
export const LEADING_TYPES: ReadonlySet<string> = new Set(['comment', 'line_comment', 'block_comment', 'attribute_item', 'decorator', 'attribute_list']);

const leaf: NodeRule = { role: 'leaf' };
const multiLine: NodeRule = { role: 'leaf', minLines: 3 };
const container: NodeRule = { role: 'container' };
const multiLineContainer: NodeRule = { role: 'container', minLines: 3 };
const scope: NodeRule = { role: 'scope' };
const transparent: NodeRule = { role: 'transparent' };
const wrapper: NodeRule = { role: 'wrapper' };

const common: Record<string, NodeRule> = { ERROR: transparent };

// A declaration, assignment, property or call whose value is an object literal of many entries is
// a container of them (`javascriptMembers`): npm's config definitions, a table of commands or
// routes, chunked one entry per chunk when the whole is over the cap, as a class is by method.
const javascriptRules: Record<string, NodeRule> = {
  ...common,
  function_declaration: leaf,
  generator_function_declaration: leaf,
  class_declaration: container,
  class: container,
  method_definition: leaf,
  field_definition: multiLine,
  lexical_declaration: multiLineContainer,
  variable_declaration: multiLineContainer,
  export_statement: wrapper,
  expression_statement: wrapper,
  assignment_expression: multiLineContainer,
  call_expression: multiLineContainer,
  pair: multiLineContainer,
  // Reached only through `export default {…}`.
  object: multiLineContainer,
  function_expression: leaf,
  arrow_function: leaf,
};

const typescriptRules: Record<string, NodeRule> = {
  ...javascriptRules,
  abstract_class_declaration: container,
  interface_declaration: leaf,
  enum_declaration: leaf,
  type_alias_declaration: leaf,
  internal_module: scope,
  module: scope,
  ambient_declaration: wrapper,
  public_field_definition: multiLine,
};

function javascriptName(node: Node): string | undefined {
  switch (node.type) {
    case 'lexical_declaration':
    case 'variable_declaration':
      return fieldText(node.firstNamedChild, 'name');
    case 'assignment_expression':
      return fieldText(node, 'left');
    case 'field_definition':
      return fieldText(node, 'property');
    case 'call_expression': {
      // `describe('parser')`, `app.get('/users')`: the callee and its first argument if a string.
      const callee = fieldText(node, 'function');
      const first = node.childForFieldName('arguments')?.firstNamedChild;
      const label = first && (first.type === 'string' || first.type === 'template_string') ? `(${shortLabel(first.text, 50)})` : '';
      return callee ? `${shortLabel(callee, 40)}${label}` : undefined;
    }
    case 'pair': {
      const key = node.childForFieldName('key')?.text;
      return key ? shortLabel(key.replace(/^(['"`])(.*)\1$/s, '$2'), 80) : undefined;
    }
    case 'function_expression':
    case 'arrow_function':
    case 'class':
      // Only reached through `export default`.
      return fieldText(node, 'name') ?? 'default';
    case 'object':
      return 'default';
    default:
      return undefined;
  }
}

/**
 * Entries (properties and methods) an object literal needs to be chunked by entry. An object of a
 * few big members is one piece of behaviour, cut by lines as a long function is: split into its
 * `meta` and its `create`, an ESLint rule's `meta` (the option names, the messages) outranked the
 * code that applies them, and two answers of bench/agent-bytes.ts were no longer printed in full.
 */
const MIN_TABLE_ENTRIES = 8;

/** The containers whose members are an object literal's entries rather than a body's. */
const VALUE_CONTAINERS: ReadonlySet<string> = new Set([
  'lexical_declaration',
  'variable_declaration',
  'assignment_expression',
  'call_expression',
  'pair',
  'object',
]);

/**
 * The object literal whose entries are the members of a JavaScript container: the value of a
 * declaration (of one name), an assignment or a property, through `as const` and `satisfies`, or a
 * call's last argument (`defineComponent({…})`, `new Definition('name', {…})`), when it has
 * MIN_TABLE_ENTRIES entries. Null when the value is something else; undefined for the classes and
 * namespaces, which the generic rule handles.
 */
function javascriptMembers(node: Node): Node | null | undefined {
  if (!VALUE_CONTAINERS.has(node.type)) return undefined;
  const object = objectLiteralOf(node, 0);
  const entries = object?.namedChildren.filter((child) => child?.type === 'pair' || child?.type === 'method_definition').length ?? 0;
  return entries >= MIN_TABLE_ENTRIES ? object : null;
}

/** Wrappers followed down to an object literal; deeper nesting (`((({…})))`) is not a table. */
const MAX_VALUE_WRAPPERS = 4;

function objectLiteralOf(node: Node | null | undefined, depth: number): Node | null {
  if (!node || depth > MAX_VALUE_WRAPPERS) return null;
  switch (node.type) {
    case 'object':
      return node;
    case 'lexical_declaration':
    case 'variable_declaration': {
      const declarators = node.namedChildren.filter((child) => child?.type === 'variable_declarator');
      return declarators.length === 1 ? objectLiteralOf(declarators[0]!.childForFieldName('value'), depth + 1) : null;
    }
    case 'assignment_expression':
      return objectLiteralOf(node.childForFieldName('right'), depth + 1);
    case 'pair':
      return objectLiteralOf(node.childForFieldName('value'), depth + 1);
    case 'as_expression':
    case 'satisfies_expression':
    case 'parenthesized_expression':
      return objectLiteralOf(node.firstNamedChild, depth + 1);
    case 'call_expression':
    case 'new_expression':
      return objectLiteralOf(node.childForFieldName('arguments')?.lastNamedChild, depth + 1);
    default:
      return null;
  }
}

const cRules: Record<string, NodeRule> = {
  ...common,
  function_definition: leaf,
  declaration: { role: 'leaf', minLines: 2 },
  type_definition: { role: 'leaf', minLines: 2 },
  struct_specifier: { role: 'container', minLines: 2 },
  union_specifier: { role: 'container', minLines: 2 },
  class_specifier: { role: 'container', minLines: 2 },
  enum_specifier: { role: 'leaf', minLines: 2 },
  preproc_def: { role: 'leaf', minLines: 2 },
  preproc_function_def: { role: 'leaf', minLines: 2 },
  preproc_if: transparent,
  preproc_ifdef: transparent,
  preproc_else: transparent,
  preproc_elif: transparent,
  preproc_elifdef: transparent,
  linkage_specification: scope,
  namespace_definition: scope,
  template_declaration: wrapper,
};

function cName(node: Node): string | undefined {
  if (node.type === 'function_definition') {
    const declarator = innermostDeclarator(node);
    const name = declarator?.text;
    if (!name) return undefined;
    // Kernel-style definitions through a macro, `SYSCALL_DEFINE3(open, ...)`: the macro's name
    // alone says nothing, its first argument is the real name. Read from the source text, since
    // the skeleton parse does not see inside argument lists.
    if (/^[A-Z][A-Z0-9_]*$/.test(name)) {
      const params = declarator.parent?.childForFieldName('parameters');
      const first = params && /^\(\s*(\w+)\s*[,)]/.exec(params.text.slice(0, 200))?.[1];
      if (first) return `${name}(${first})`;
    }
    return qualified(declaredName(name));
  }
  if (node.type === 'declaration' || node.type === 'type_definition') {
    // `struct foo { … };` declares no variable: the struct's name is the name.
    const declared = innermostDeclarator(node)?.text;
    // Only a name with its parameters: in a variable's, the words after the name are attributes (`ops __read_mostly`).
    const name = declared === undefined ? fieldText(node.childForFieldName('type'), 'name') : declared.includes('(') ? declaredName(declared) : declared;
    return name === undefined ? undefined : qualified(name);
  }
  return undefined;
}

/**
 * The name in what the grammar took for one. `__noreturn kthread_exit` (an attribute macro read as
 * part of the name) is `kthread_exit`; `quicklistNode *quicklistCreateNode(void)`, where redis's
 * `REDIS_STATIC` in front left the grammar no place for the return type, is `quicklistCreateNode`.
 * `operator*` is itself a name, not `operator` and a pointer.
 */
function declaredName(name: string): string {
  if (/^operator\b/.test(name)) return name;
  if (/^[\w\s*]+$/.test(name))
    return (
      name
        .trim()
        .split(/[\s*]+/)
        .pop() ?? name
    );
  return /^[\w\s*&]*?\b(\w+)\s*\(/.exec(name)?.[1] ?? name;
}

/** `Store::search` is titled `Store > search`, the same path as a method defined inside the class. */
function qualified(name: string): string {
  return name.replace(/\s*::\s*/g, ' > ').replace(/^ > /, '');
}

/**
 * Follows `declarator` fields (pointer, function, array, init declarators) down to the declared
 * name. Bounded: a pathological `*****…x` must not cost more than a glance.
 */
function innermostDeclarator(node: Node): Node | undefined {
  let current = node.childForFieldName('declarator');
  for (let i = 0; current && i < 32; i++) {
    // `Store::search` is itself a name; its `name` field would drop the `Store`.
    if (/identifier|_name$/.test(current.type)) return current;
    // `T& get(…)`: the grammar gives a reference declarator no `declarator` field, only a child.
    const next =
      current.childForFieldName('declarator') ??
      current.childForFieldName('name') ??
      (current.type === 'reference_declarator' ? current.firstNamedChild : null);
    if (!next) return undefined;
    current = next;
  }
  return undefined;
}

function goName(node: Node): string | undefined {
  if (node.type === 'method_declaration') {
    // `func (s *Store) Search()` is titled `Store > Search`, like a method in a class.
    const receiver = node.childForFieldName('receiver')?.firstNamedChild?.childForFieldName('type');
    const type = receiver?.text.replace(/^\*/, '').replace(/\[.*$/, '');
    const name = fieldText(node, 'name');
    return type && name ? `${type} > ${name}` : name;
  }
  if (node.type === 'type_declaration' || node.type === 'const_declaration' || node.type === 'var_declaration') {
    return fieldText(node.firstNamedChild, 'name');
  }
  return undefined;
}

function rustName(node: Node): string | undefined {
  if (node.type !== 'impl_item') return undefined;
  const type = fieldText(node, 'type');
  const trait = fieldText(node, 'trait');
  return trait && type ? `${trait} for ${type}` : type;
}

function rubyName(node: Node): string | undefined {
  if (node.type === 'singleton_method') return `self.${fieldText(node, 'name') ?? ''}`;
  if (node.type === 'singleton_class') return `class << ${fieldText(node, 'value') ?? 'self'}`;
  return undefined;
}

function cssName(node: Node): string | undefined {
  if (node.type === 'rule_set') {
    const selectors = node.namedChildren.find((c) => c?.type === 'selectors');
    return selectors ? shortLabel(selectors.text, 80) : undefined;
  }
  return headerText(node);
}

export const CODE_LANGUAGES: Readonly<Record<string, CodeLanguage>> = {
  typescript: { grammar: 'typescript', rules: typescriptRules, name: javascriptName, members: javascriptMembers },
  tsx: { grammar: 'tsx', rules: typescriptRules, name: javascriptName, members: javascriptMembers },
  javascript: { grammar: 'javascript', rules: javascriptRules, name: javascriptName, members: javascriptMembers },
  python: {
    grammar: 'python',
    rules: { ...common, function_definition: leaf, class_definition: container, decorated_definition: wrapper },
  },
  go: {
    grammar: 'go',
    rules: {
      ...common,
      function_declaration: leaf,
      method_declaration: leaf,
      type_declaration: leaf,
      const_declaration: multiLine,
      var_declaration: multiLine,
    },
    name: goName,
  },
  rust: {
    grammar: 'rust',
    rules: {
      ...common,
      function_item: leaf,
      struct_item: leaf,
      enum_item: leaf,
      union_item: leaf,
      type_item: leaf,
      macro_definition: leaf,
      const_item: multiLine,
      static_item: multiLine,
      trait_item: container,
      impl_item: container,
      mod_item: scope,
      foreign_mod_item: scope,
    },
    name: rustName,
  },
  java: {
    grammar: 'java',
    rules: {
      ...common,
      class_declaration: container,
      interface_declaration: container,
      enum_declaration: container,
      record_declaration: container,
      annotation_type_declaration: container,
      enum_body_declarations: transparent,
      method_declaration: leaf,
      constructor_declaration: leaf,
      compact_constructor_declaration: leaf,
      field_declaration: multiLine,
    },
  },
  c: { grammar: 'cpp', rules: cRules, name: cName, skeleton: 'c' },
  cpp: { grammar: 'cpp', rules: cRules, name: cName, skeleton: 'cpp' },
  csharp: {
    grammar: 'c-sharp',
    rules: {
      ...common,
      namespace_declaration: scope,
      class_declaration: container,
      struct_declaration: container,
      interface_declaration: container,
      record_declaration: container,
      enum_declaration: leaf,
      method_declaration: leaf,
      constructor_declaration: leaf,
      destructor_declaration: leaf,
      operator_declaration: leaf,
      conversion_operator_declaration: leaf,
      indexer_declaration: leaf,
      property_declaration: multiLine,
      event_declaration: multiLine,
      field_declaration: multiLine,
    },
  },
  ruby: {
    grammar: 'ruby',
    rules: { ...common, class: container, singleton_class: container, module: scope, method: leaf, singleton_method: leaf },
    name: rubyName,
  },
  php: {
    grammar: 'php',
    rules: {
      ...common,
      namespace_definition: scope,
      class_declaration: container,
      interface_declaration: container,
      trait_declaration: container,
      enum_declaration: container,
      method_declaration: leaf,
      function_definition: leaf,
    },
  },
  shellscript: { grammar: 'bash', rules: { ...common, function_definition: leaf } },
  css: {
    grammar: 'css',
    rules: {
      ...common,
      rule_set: leaf,
      media_statement: container,
      supports_statement: container,
      keyframes_statement: leaf,
      at_rule: leaf,
    },
    name: cssName,
  },
};

/**
 * What a symbol is called: the language's own rule, else its `name` field, else the name at the
 * end of its declarator chain, else its first line. Never empty.
 */
export function symbolName(node: Node, language: CodeLanguage): string {
  // One line, whatever the source: a C++ declarator can span a template's lines and #if branches.
  return shortLabel(language.name?.(node) ?? fieldText(node, 'name') ?? innermostDeclarator(node)?.text ?? headerText(node) ?? node.type, 80);
}

function fieldText(node: Node | null | undefined, field: string): string | undefined {
  const text = node?.childForFieldName(field)?.text;
  return text ? shortLabel(text, 80) : undefined;
}

/** The first line of a node up to its opening brace: `@media (max-width: 600px)`, `class << self`. */
function headerText(node: Node): string | undefined {
  const firstLine = node.text.slice(0, 400).split('\n')[0] ?? '';
  const header = firstLine.replace(/\{.*$/, '').trim();
  return header ? shortLabel(header, 80) : undefined;
}
