// Runs a document's recipes as a reader does, in one shell, in document order, against a running
// `npm start`: shell blocks are typed into that shell (their variables carry over), JavaScript
// blocks are saved as `.mjs` files and run with node from it, files are saved where the document
// says. The reader sits in a checkout: a folder with the stack's `.data` and the repository's
// `node_modules`, and a home of its own for files such as `~/.codex/config.toml`.
//
// What is changed in a block before it runs: only the addresses it names, from npm start's
// defaults (`http://localhost:4000`) to where the stack under test listens. A command that fails
// fails the recipe: curl answers of 400 and above count as failures (curl runs with
// `--fail-with-body`, so the answer is still shown), and so does any command with a non-zero
// exit or an unset variable.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Recipe } from './recipes.ts';

export interface ReaderOptions {
  /** The repository: its node_modules is the reader's. */
  root: string;
  /** npm start's data directory: the reader's `.data`. */
  dataDir: string;
  /** npm start's default address → the address it has here, e.g. `http://localhost:4000` → `http://localhost:41234`. */
  addresses: Record<string, string>;
  /** Commands the reader has installed that this machine lacks, by name → the script that stands in for them. */
  standIns?: Record<string, string>;
  /** Commands the reader has installed, by name → their executable (installed for the test, not on PATH); they read no input from the shell. */
  installed?: Record<string, string>;
  /** Per block. */
  timeoutMs?: number;
}

export interface RecipeRun {
  where: string;
  output: string;
}

const DONE = '@@recipe-done';

/** The shell the reader types into: bash, with a failure counter and curl failing on HTTP errors. */
const PRELUDE = [
  // One stream, so that a failure's message comes before the marker that ends its command.
  'exec 2>&1',
  'set -u -E -o pipefail',
  '__failed=0',
  // Counted wherever it fails; named where the block has it (not inside the curl wrapper).
  `trap '__status=$?; __failed=$((__failed+1)); [[ \${BASH_SOURCE[0]-} == */blocks/* ]] && echo "exit code $__status at line $LINENO of the block" >&2' ERR`,
  // The reader sees every answer; the test also needs to know when one is an error.
  'curl() { command curl --fail-with-body --show-error "$@"; }',
  '',
].join('\n');

/** Runs `recipes` in order; throws at the first that fails, naming it with its output. */
export async function runRecipes(recipes: Recipe[], options: ReaderOptions): Promise<RecipeRun[]> {
  const reader = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-doc-reader-'));
  const checkout = path.join(reader, 'checkout');
  const home = path.join(reader, 'home');
  const bin = path.join(reader, 'bin');
  for (const folder of [checkout, home, bin, path.join(reader, 'blocks')]) fs.mkdirSync(folder);
  fs.symlinkSync(options.dataDir, path.join(checkout, '.data'));
  fs.symlinkSync(path.join(options.root, 'node_modules'), path.join(checkout, 'node_modules'));
  for (const [name, script] of Object.entries(options.standIns ?? {})) {
    const file = path.join(bin, name);
    fs.writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" --disable-warning=ExperimentalWarning "${script}" "$@"\n`, { mode: 0o755 });
  }
  for (const [name, executable] of Object.entries(options.installed ?? {})) {
    // Its stdin is not the shell's (the rest of the recipes): run from a terminal, it would read none.
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\nexec "${executable}" "$@" </dev/null\n`, { mode: 0o755 });
  }
  // A checkout is a git repository (coding agents look for one).
  spawnSync('git', ['init', '-q'], { cwd: checkout });
  const nodeBin = path.dirname(process.execPath);
  const shell = spawn('bash', ['--noprofile', '--norc'], {
    cwd: checkout,
    env: { PATH: `${bin}:${nodeBin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, HOME: home, LANG: 'C.UTF-8', TMPDIR: os.tmpdir() },
    stdio: ['pipe', 'pipe', 'pipe'],
    // A process group of its own, so that a recipe left running (a timeout) goes with the shell.
    detached: true,
  });
  const session = new ShellSession(shell);
  const runs: RecipeRun[] = [];
  try {
    session.send(PRELUDE);
    for (const [index, recipe] of recipes.entries()) {
      const code = withAddresses(recipe.code, options.addresses);
      let command: string;
      switch (recipe.action.kind) {
        case 'skip':
          continue;
        case 'file': {
          const target = recipe.action.path.replace(/^~(?=\/)/, home);
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, code);
          continue;
        }
        case 'shell': {
          const file = path.join(reader, 'blocks', `${index}.sh`);
          fs.writeFileSync(file, code);
          // Sourced, so its variables stay; stdin closed, so nothing it runs reads ours.
          command = `source ${file} < /dev/null`;
          break;
        }
        case 'module': {
          const file = `recipe-${index}.mjs`;
          fs.writeFileSync(path.join(checkout, file), code);
          command = `node ${file} < /dev/null`;
          break;
        }
      }
      const { output, failed } = await session.run(command, options.timeoutMs ?? 30000, recipe.where);
      runs.push({ where: recipe.where, output });
      if (failed) throw new Error(`${recipe.where} fails as written:\n${numbered(recipe.code)}\n--- what it printed${tail(output)}`);
    }
    return runs;
  } finally {
    try {
      process.kill(-(shell.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
    fs.rmSync(reader, { recursive: true, force: true });
  }
}

/** The end of a block's output, where its failure is: a key-API block prints pages of answers before it. */
function tail(output: string, size = 4000): string {
  return output.length <= size ? ` ---\n${output}` : ` (its last ${size} characters) ---\n…${output.slice(-size)}`;
}

function numbered(code: string): string {
  return code
    .trimEnd()
    .split('\n')
    .map((line, index) => `${String(index + 1).padStart(3)}  ${line}`)
    .join('\n');
}

function withAddresses(code: string, addresses: Record<string, string>): string {
  let changed = code;
  for (const [written, actual] of Object.entries(addresses)) changed = changed.split(written).join(actual);
  return changed;
}

/** One bash process fed command by command; each command's output up to the marker it prints after it. */
class ShellSession {
  private output = '';
  private waiting: (() => void) | undefined;
  private exited: string | undefined;
  private readonly shell: ChildProcessWithoutNullStreams;

  constructor(shell: ChildProcessWithoutNullStreams) {
    this.shell = shell;
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      this.waiting?.();
    };
    shell.stdout.on('data', collect);
    // Before the prelude joins the streams, and bash's own complaints.
    shell.stderr.on('data', collect);
    shell.on('exit', (code, signal) => {
      this.exited = `the shell exited (${signal ?? code})`;
      this.waiting?.();
    });
  }

  send(text: string): void {
    this.shell.stdin.write(text);
  }

  async run(command: string, timeoutMs: number, where: string): Promise<{ output: string; failed: boolean }> {
    this.output = '';
    this.send(`__failed=0\n${command}\necho "${DONE} $__failed"\n`);
    const done = new RegExp(`${DONE} (\\d+)\\n`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${where} did not finish within ${timeoutMs / 1000} s:\n${this.output}`)), timeoutMs);
      this.waiting = () => {
        if (!done.test(this.output) && this.exited === undefined) return;
        clearTimeout(timer);
        this.waiting = undefined;
        resolve();
      };
      this.waiting();
    });
    const match = done.exec(this.output);
    if (!match) return { output: `${this.output}\n${this.exited}`, failed: true };
    return { output: this.output.slice(0, match.index), failed: match[1] !== '0' };
  }
}
