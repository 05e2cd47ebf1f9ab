// A folder with planted secrets of every kind the engine keeps from agents: some in files that hold
// nothing but credentials (kept out of the index), some inside ordinary source and configuration
// (indexed, and redacted from answers). Each secret is generated from a seed, so no real-looking
// token is committed to the repository, and each sits next to ordinary words that must still come
// back. The secrets test and bench/secrets.ts both plant this corpus.

import fs from 'node:fs';
import path from 'node:path';
import { random } from './random.ts';

export interface PlantedSecret {
  /** What it is, as a benchmark row names it. */
  kind: string;
  /** The file it is planted in, relative to the root. */
  file: string;
  /** The secret itself: this string must never reach an agent. */
  secret: string;
  /**
   * A distinctive piece of the secret an agent might search for: its start, never its last 12
   * characters, so an answer that echoes the query does not count as giving the secret away.
   */
  probe: string;
  /** Ordinary words on the lines around it, which should still be found and shown. */
  context: string;
  /** True when the whole file is kept out of the index as a credential file. */
  keptOut: boolean;
}

export interface SecretCorpus {
  secrets: PlantedSecret[];
  /** Files written that hold no secret at all and must be indexed. */
  ordinaryFiles: string[];
  /** Files the index must keep out as credential files. */
  keptOutFiles: string[];
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = `${ALNUM}+/`;

export function plantSecrets(root: string, seed = 13): SecretCorpus {
  const next = random(seed);
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  const base64url = (n: number) => chars(`${ALNUM}-_`, n);
  const keyBody = (lines: number) => Array.from({ length: lines }, () => chars(BASE64, 64));
  const secrets: PlantedSecret[] = [];
  const files = new Map<string, string[]>();
  const write = (file: string, ...lines: string[]) => files.set(file, [...(files.get(file) ?? []), ...lines]);
  const plant = (kind: string, file: string, secret: string, context: string, keptOut: boolean, probe = secret.slice(0, Math.min(24, secret.length - 12))) => {
    secrets.push({ kind, file, secret, probe, context, keptOut });
    return secret;
  };

  // Credential files: kept out of the index whole.
  write(
    '.env',
    '# billing service environment for the invoice worker',
    `AWS_ACCESS_KEY_ID=${plant('aws access key id', '.env', `AKIA${chars(UPPER_DIGITS, 16)}`, 'billing service environment', true)}`,
    `AWS_SECRET_ACCESS_KEY=${plant('aws secret key', '.env', chars(BASE64, 40), 'billing service environment', true)}`,
  );
  write('.env.production', `STRIPE_SECRET_KEY=${plant('stripe key', '.env.production', `sk_live_${chars(ALNUM, 24)}`, 'STRIPE_SECRET_KEY', true)}`);
  const sshKey = keyBody(6);
  write('.ssh/id_rsa', '-----BEGIN OPENSSH PRIVATE KEY-----', ...sshKey, '-----END OPENSSH PRIVATE KEY-----');
  plant('private key', '.ssh/id_rsa', sshKey[2]!, 'OPENSSH PRIVATE KEY', true);
  write('.ssh/config', 'Host deploybox', '  HostName deploy.internal', '  IdentityFile ~/.ssh/id_rsa');
  const edKey = keyBody(3);
  write('deploy/id_ed25519', '-----BEGIN OPENSSH PRIVATE KEY-----', ...edKey, '-----END OPENSSH PRIVATE KEY-----');
  plant('private key', 'deploy/id_ed25519', edKey[1]!, 'OPENSSH PRIVATE KEY', true);
  const pemKey = keyBody(8);
  write('certs/server.pem', '-----BEGIN RSA PRIVATE KEY-----', ...pemKey, '-----END RSA PRIVATE KEY-----');
  plant('private key', 'certs/server.pem', pemKey[4]!, 'RSA PRIVATE KEY', true);
  const tlsKey = keyBody(4);
  write('certs/tls.key', '-----BEGIN EC PRIVATE KEY-----', ...tlsKey, '-----END EC PRIVATE KEY-----');
  plant('private key', 'certs/tls.key', tlsKey[0]!, 'EC PRIVATE KEY', true);
  write(
    '.aws/credentials',
    '[default]',
    `aws_access_key_id = ${plant('aws access key id', '.aws/credentials', `AKIA${chars(UPPER_DIGITS, 16)}`, 'default profile', true)}`,
    `aws_secret_access_key = ${plant('aws secret key', '.aws/credentials', chars(BASE64, 40), 'default profile', true)}`,
  );
  write('.npmrc', `//registry.npmjs.org/:_authToken=${plant('npm token', '.npmrc', `npm_${chars(ALNUM, 36)}`, '_authToken', true)}`);
  write('.git-credentials', `https://deploy:${plant('github token', '.git-credentials', `ghp_${chars(ALNUM, 36)}`, 'deploy', true)}@github.com`);
  write('.netrc', `machine api.internal login deploy password ${plant('password', '.netrc', chars(ALNUM, 20), 'machine api.internal', true)}`);
  write('.pypirc', '[pypi]', 'username = __token__', `password = ${plant('pypi token', '.pypirc', `pypi-${base64url(60)}`, 'username __token__', true)}`);
  write(
    '.docker/config.json',
    `{ "auths": { "registry.internal": { "auth": "${plant('docker auth', '.docker/config.json', chars(BASE64, 32), 'registry.internal', true)}" } } }`,
  );
  write(
    'infra/terraform.tfstate',
    `{ "resources": [ { "type": "aws_db_instance", "password": "${plant('terraform state', 'infra/terraform.tfstate', chars(ALNUM, 24), 'aws_db_instance', true)}" } ] }`,
  );
  write(
    'credentials.json',
    `{ "installed": { "client_id": "1234.apps.googleusercontent.com", "client_secret": "${plant('google client secret', 'credentials.json', `GOCSPX-${base64url(28)}`, 'googleusercontent', true)}" } }`,
  );

  // Ordinary files: indexed, and every secret in them redacted from answers.
  write(
    'src/clients.ts',
    '// Clients for the invoice pipeline: each reads its credentials at start-up.',
    `export const GITHUB_TOKEN = '${plant('github token', 'src/clients.ts', `ghp_${chars(ALNUM, 36)}`, 'invoice pipeline', false)}';`,
    `export const OPENAI_API_KEY = '${plant('openai key', 'src/clients.ts', `sk-proj-${base64url(20)}7${base64url(27)}`, 'invoice pipeline', false)}';`,
    `export const ANTHROPIC_API_KEY = '${plant('anthropic key', 'src/clients.ts', `sk-ant-api03-${base64url(80)}`, 'invoice pipeline', false)}';`,
    `export const MAPS_KEY = '${plant('google api key', 'src/clients.ts', `AIza${base64url(35)}`, 'invoice pipeline', false)}';`,
    'export function invoiceClient(retries: number) {',
    '  return { retries, region: "eu-west-1" };',
    '}',
  );
  write(
    'src/payments.py',
    '"""Charges customers for their monthly subscription through the payment gateway."""',
    `STRIPE_KEY = "${plant('stripe key', 'src/payments.py', `rk_live_${chars(ALNUM, 24)}`, 'monthly subscription', false)}"`,
    `SLACK_TOKEN = "${plant('slack token', 'src/payments.py', `xoxb-${chars('0123456789', 12)}-${chars('0123456789', 13)}-${chars(ALNUM, 24)}`, 'monthly subscription', false)}"`,
    `db_password = "${plant('password assignment', 'src/payments.py', `${chars(ALNUM, 10)}!${chars(ALNUM, 6)}`, 'monthly subscription', false)}"`,
    '',
    'def charge_subscription(customer, amount):',
    '    return gateway.charge(customer, amount)',
  );
  const jwt = `eyJ${base64url(20)}.eyJ${base64url(40)}.${base64url(43)}`;
  write(
    'config/settings.yaml',
    'warehouse:',
    `  database_url: postgres://inventory:${plant('password in url', 'config/settings.yaml', chars(ALNUM, 18), 'replenish_threshold', false)}@db.internal:5432/stock`,
    `  session_jwt: ${plant('jwt', 'config/settings.yaml', jwt, 'replenish_threshold', false)}`,
    `  client_secret: ${plant('client secret assignment', 'config/settings.yaml', chars(ALNUM, 32), 'replenish_threshold', false)}`,
    '  replenish_threshold: 40',
  );
  const inlineKey = keyBody(5);
  write(
    'src/signing.go',
    'package signing',
    '',
    '// testSigningKey signs the webhook payloads in the integration tests.',
    'const testSigningKey = `-----BEGIN PRIVATE KEY-----',
    ...inlineKey,
    '-----END PRIVATE KEY-----`',
    '',
    'func VerifyWebhook(payload []byte) bool { return len(payload) > 0 }',
  );
  plant('private key', 'src/signing.go', inlineKey[2]!, 'webhook payloads', false);
  write(
    'docs/deploy.md',
    '# Deploying the storefront',
    '',
    `Publish with \`NPM_TOKEN=${plant('npm token', 'docs/deploy.md', `npm_${chars(ALNUM, 36)}`, 'storefront', false)}\` set.`,
    `Mirror pushes use \`${plant('gitlab token', 'docs/deploy.md', `glpat-${base64url(20)}`, 'storefront', false)}\`.`,
    `Alerts go to https://${plant('slack webhook', 'docs/deploy.md', `hooks.slack.com/services/T${chars(UPPER_DIGITS, 8)}/B${chars(UPPER_DIGITS, 8)}/${chars(ALNUM, 24)}`, 'storefront', false)}.`,
    `curl -H "Authorization: Bearer ${plant('bearer token', 'docs/deploy.md', base64url(40), 'storefront', false)}" https://api.internal/deploy`,
    '',
    'Roll back by redeploying the previous storefront release.',
  );

  // Files that hold no secret, some of them named like credential files.
  const ordinaryFiles = ['.env.example', 'packages/web/.npmrc', 'src/retry.ts', 'README.md', 'deploy/id_ed25519.pub'];
  write('.env.example', '# copy to .env and fill in the billing credentials', 'AWS_ACCESS_KEY_ID=', 'AWS_SECRET_ACCESS_KEY=', 'password=changeme');
  write('packages/web/.npmrc', 'registry=https://registry.npmjs.org/', 'save-exact=true');
  write('src/retry.ts', 'export function retryWithBackoff(attempts: number): number {', '  return Math.min(1000 * 2 ** attempts, 30000);', '}');
  write('README.md', '# Storefront', '', 'The storefront sells subscriptions; see docs/deploy.md for deploying it.');
  write('deploy/id_ed25519.pub', `ssh-ed25519 ${chars(BASE64, 68)} deploy@storefront`);

  for (const [file, lines] of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), `${lines.join('\n')}\n`);
  }
  const keptOutFiles = [...new Set([...secrets.filter((s) => s.keptOut).map((s) => s.file), '.ssh/config'])].sort();
  return { secrets, ordinaryFiles, keptOutFiles };
}

/**
 * For each planted secret, a stack trace whose one frame names the secret's line by another
 * machine's path to its file, as a CI log would: `locate` prints the line a frame names.
 */
export function tracesIntoSecrets(root: string, corpus: SecretCorpus): string[] {
  return corpus.secrets.map((secret) => {
    const lines = fs.readFileSync(path.join(root, secret.file), 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes(secret.secret.split('\n')[0]!)) + 1;
    return `Error: ${secret.context} failed\n    at load (/home/ci/build/${secret.file}:${line}:1)`;
  });
}
