import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
// Every library and app is kept free of import circles (a new one joins by being there).
const CHECKED = ['libs', 'apps'].flatMap((kind) =>
  fs
    .readdirSync(path.join(root, kind))
    .map((name) => `${kind}/${name}/src`)
    .filter((dir) => fs.existsSync(path.join(root, dir))),
);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.(integration-)?spec\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The files of the same library `file` imports by relative path (type-only imports too: a circle of types is still a circle). */
function relativeImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, false);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .flatMap((name) => {
      const base = path.resolve(path.dirname(file), name);
      const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
      return found ? [found] : [];
    });
}

/** Every import circle among `files`, each as the files in it (relative to the repository), found by depth-first search. */
function circles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, relativeImports(file)]));
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)).map((item) => path.relative(root, item)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found;
}

describe('import circles', () => {
  it.each(CHECKED)('has none in %s', (dir) => {
    expect(circles(sourceFiles(path.join(root, dir)))).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
    const dir = fs.mkdtempSync(path.join(root, 'tmp', 'circles-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { c } from './c';\nexport type B = typeof c;\n");
      fs.writeFileSync(path.join(dir, 'c.ts'), "import type { A } from './a';\nexport const c = 1 as unknown as A;\n");
      expect(circles(sourceFiles(dir)).map((circle) => circle.map((file) => path.basename(file)))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
