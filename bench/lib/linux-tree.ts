// The Linux 6.1 source tree from Debian's linux-source-6.1 package: the large real corpus of the benchmarks.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const LINUX_TARBALL = '/usr/src/linux-source-6.1.tar.xz';

/**
 * Extracts Debian's kernel source once into .cache/linux-6.1. Debian appends a stanza to the
 * kernel's top-level .gitignore that ignores everything but debian/ (`/*`, `!/debian/`); it is cut
 * off, so the tree is indexed as the kernel's own ignore rules describe it.
 */
export function linuxTree(): string {
  const target = path.resolve('.cache/linux-6.1');
  if (fs.existsSync(path.join(target, '.extracted'))) return target;
  if (!fs.existsSync(LINUX_TARBALL)) throw new Error(`${LINUX_TARBALL} is missing: apt-get install linux-source-6.1`);
  fs.mkdirSync(target, { recursive: true });
  console.log(`Extracting ${LINUX_TARBALL} into ${target} …`);
  execFileSync('tar', ['-xJf', LINUX_TARBALL, '-C', target, '--strip-components=1']);
  const gitignore = path.join(target, '.gitignore');
  const rules = fs.readFileSync(gitignore, 'utf8');
  const debianStanza = rules.indexOf('# Debian packaging');
  if (debianStanza !== -1) fs.writeFileSync(gitignore, rules.slice(0, debianStanza));
  fs.writeFileSync(path.join(target, '.extracted'), '');
  return target;
}
