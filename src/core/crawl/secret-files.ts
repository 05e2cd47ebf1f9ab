// Files that hold credentials, kept out of the index unless the user opts in (`indexSecretFiles`).
// An index is read by agents, and whatever an agent reads may travel to the service it talks to:
// a `.env` or an `id_rsa` in there is a key handed over. This is the one list; docs/architecture.md
// ("Secrets") repeats it with the reasons.
//
// Two kinds of rule. By name: files whose whole purpose is a credential (a private key, a `.env`),
// kept out without reading them. By content: configuration files that only sometimes hold one
// (an `.npmrc` with `_authToken`, a kubeconfig with a `token:`): read, and kept out only then, so a
// project's `.npmrc` that just names a registry is still searchable.

import fs from 'node:fs';

/** Extensions of key stores and private keys; certificates alone (`.crt`, `.cer`) are public and checked by content. */
const KEY_EXTENSIONS: ReadonlySet<string> = new Set(['pem', 'key', 'p12', 'pfx', 'keystore', 'jks', 'p8', 'ppk', 'kdbx', 'keytab', 'tfstate']);

/** Whole names that are nothing but credentials or state full of them. */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  '.git-credentials',
  '.pgpass',
  '.htpasswd',
  '.vault-token',
  '.envrc',
  'secrets.yml',
  'secrets.yaml',
  'secrets.json',
  'secrets.toml',
  'terraform.tfstate.backup',
]);

/** `.env.example` and its kin are templates committed for people to copy: keys without values. */
const ENV_TEMPLATE_SUFFIXES: ReadonlySet<string> = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'schema', 'tmpl', 'tpl']);

/**
 * Configuration files that hold a credential only sometimes, and the lines that mean one is there.
 * The patterns are deliberately loose (any value after the key counts): keeping out a harmless
 * file costs a search hit, letting a token in costs the token.
 */
const CONTENT_RULES: ReadonlyArray<{ matches: (relPath: string, name: string) => boolean; holdsSecret: RegExp }> = [
  { matches: (_, name) => name === '.npmrc', holdsSecret: /(?:_authToken|_auth|_password)\s*=/ },
  { matches: (_, name) => name === '.pypirc', holdsSecret: /^\s*password\s*[=:]/m },
  { matches: (_, name) => name === '.netrc' || name === '_netrc', holdsSecret: /\bpassword\s+\S/ },
  {
    matches: (relPath) => relPath === '.docker/config.json' || relPath.endsWith('/.docker/config.json'),
    holdsSecret: /"(?:auth|identitytoken|registrytoken)"\s*:\s*"[^"]/,
  },
  {
    matches: (relPath, name) => relPath === '.kube/config' || relPath.endsWith('/.kube/config') || /^kubeconfig/i.test(name),
    holdsSecret: /^\s*(?:token|password|client-key-data|client-key|auth-provider)\s*:/m,
  },
  {
    // Google's OAuth client files and service-account keys, whatever they were saved as.
    matches: (_, name) =>
      name === 'credentials.json' || name === 'client_secret.json' || /^client_secret_.*\.json$/.test(name) || name === 'service-account.json',
    holdsSecret: /"(?:private_key|client_secret|refresh_token)"\s*:/,
  },
  { matches: (_, name) => name === '.s3cfg' || name === '.boto', holdsSecret: /^\s*(?:secret_key|aws_secret_access_key|gs_secret_access_key)\s*=/m },
  // A certificate is public; the same file with its private key appended is not.
  { matches: (_, name) => /\.(?:crt|cer|cert)$/i.test(name), holdsSecret: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY/ },
];

/** Bytes of a content-checked file read for the check: every rule above is about small files. */
const CONTENT_CHECK_BYTES = 256 * 1024;

export type SecretVerdict = 'secret' | 'check-content' | undefined;

/**
 * What a path says on its own (`relPath` relative to the root, `/`-separated): `secret` for a file
 * kept out by name, `check-content` when `holdsCredentials` must read it, else undefined.
 */
export function secretByPath(relPath: string): SecretVerdict {
  const segments = relPath.split('/');
  const name = segments.at(-1) ?? '';
  // Anything under a `.ssh` folder: keys, and the config and known_hosts that say where they open doors.
  if (segments.slice(0, -1).includes('.ssh')) return 'secret';
  const lower = name.toLowerCase();
  if (segments.at(-2) === '.aws' && (lower === 'credentials' || lower === 'credentials.json')) return 'secret';
  if (isEnvFile(lower)) return 'secret';
  // Private keys by ssh-keygen's names; the `.pub` half is public.
  if (/^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:$|[._-](?!pub$))/.test(lower) && !lower.endsWith('.pub')) return 'secret';
  if (SECRET_NAMES.has(lower)) return 'secret';
  const dot = lower.lastIndexOf('.');
  if (dot > 0 && KEY_EXTENSIONS.has(lower.slice(dot + 1))) return 'secret';
  if (CONTENT_RULES.some((rule) => rule.matches(relPath, name))) return 'check-content';
  return undefined;
}

/** `.env`, `.env.local`, `.env.production`, `prod.env`, but not `.env.example` and other templates. */
function isEnvFile(lower: string): boolean {
  if (lower === '.env') return true;
  if (lower.startsWith('.env.')) return !lower.split('.').some((part) => ENV_TEMPLATE_SUFFIXES.has(part));
  if (lower.endsWith('.env') && lower.length > 4) return !lower.split('.').some((part) => ENV_TEMPLATE_SUFFIXES.has(part));
  return false;
}

/** Whether a `check-content` file's text holds a credential. */
export function holdsCredentials(relPath: string, text: string): boolean {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  return CONTENT_RULES.some((rule) => rule.matches(relPath, name) && rule.holdsSecret.test(text));
}

/**
 * Whether the file at `relPath` is kept out as a secret: by its path, or by reading it for the
 * content rules. A symlink is judged under its target's path too (`targetRelPath`): a link named
 * `config` to `.env` is the `.env`. A file that cannot be read is not a secret here; the read
 * that follows says why.
 */
export async function isSecretFile(relPath: string, absPath: string, targetRelPath?: string): Promise<boolean> {
  const verdicts = [secretByPath(relPath), ...(targetRelPath !== undefined && targetRelPath !== relPath ? [secretByPath(targetRelPath)] : [])];
  if (verdicts.includes('secret')) return true;
  if (!verdicts.includes('check-content')) return false;
  const checked = secretByPath(relPath) === 'check-content' ? relPath : targetRelPath!;
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(absPath, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const buffer = Buffer.alloc(CONTENT_CHECK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, CONTENT_CHECK_BYTES, 0);
    return holdsCredentials(checked, buffer.subarray(0, bytesRead).toString('utf8'));
  } catch {
    return false;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
