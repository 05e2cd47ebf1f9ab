// A one-line progress bar on stderr, redrawn in place; silent when stderr is not a terminal.

import type { IndexProgress } from '../core/indexer.ts';

const WIDTH = 28;

export class ProgressBar {
  private readonly stream: NodeJS.WriteStream;
  private drawn = false;

  private constructor(stream: NodeJS.WriteStream) {
    this.stream = stream;
  }

  static forStderr(): ProgressBar | undefined {
    return process.stderr.isTTY ? new ProgressBar(process.stderr) : undefined;
  }

  update(progress: IndexProgress): void {
    const columns = this.stream.columns || 80;
    let line: string;
    if (progress.phase === 'scanning') {
      line = `scanning… ${progress.filesFound.toLocaleString('en-US')} files`;
    } else {
      const share = progress.filesFound === 0 ? 1 : progress.filesDone / progress.filesFound;
      const filled = Math.round(share * WIDTH);
      line =
        `[${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ` +
        `${progress.filesDone.toLocaleString('en-US')}/${progress.filesFound.toLocaleString('en-US')} files ` +
        `${(progress.bytesDone / 1e6).toFixed(1)} MB  ${progress.currentPath ?? ''}`;
    }
    this.stream.write(`\r${line.slice(0, columns - 1).padEnd(columns - 1)}`);
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) this.stream.write(`\r${' '.repeat((this.stream.columns || 80) - 1)}\r`);
  }
}
