// Every package a file imports is declared in a package.json, so that an install never works only
// because someone else's dependency happened to bring it in; the published contract declares its own.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const SOURCE = /\.(ts|mts|cts|js|cjs|mjs)$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', '.git', 'fixtures'].includes(entry.name)) return [];
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : SOURCE.test(entry.name) ? [file] : [];
  });
}

/** The npm packages a file imports (`@scope/name` or `name`), with whether every import of it is type-only. */
function importedPackages(file: string): Map<string, boolean> {
  const text = fs.readFileSync(file, 'utf8');
  const packages = new Map<string, boolean>();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const add = (specifier: string, typeOnly: boolean) => {
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.startsWith('@arbor/')) return;
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    if (builtinModules.includes(name)) return;
    packages.set(name, (packages.get(name) ?? true) && typeOnly);
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return packages;
}

function declaredIn(manifest: string, fields: string[]): Set<string> {
  const json = JSON.parse(fs.readFileSync(path.join(root, manifest), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return new Set(fields.flatMap((field) => Object.keys(json[field] ?? {})));
}

const typesPackage = (name: string) => `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;

describe('declared dependencies', () => {
  it('declares in package.json every package a file of the workspace imports', () => {
    const declared = declaredIn('package.json', ['dependencies', 'devDependencies']);
    const undeclared = ['apps', 'libs', 'tools'].flatMap((dir) =>
      sourceFiles(path.join(root, dir)).flatMap((file) =>
        [...importedPackages(file)]
          .filter(([name, typeOnly]) => !declared.has(name) && !(typeOnly && declared.has(typesPackage(name))))
          .map(([name]) => `${path.relative(root, file)}: ${name}`),
      ),
    );
    expect(undeclared).toEqual([]);
  });

  it("declares in the published contract's package.json every package its code imports", () => {
    const declared = declaredIn('libs/contract/package.json', ['dependencies', 'peerDependencies']);
    const shipped = sourceFiles(path.join(root, 'libs/contract/src')).filter(
      (file) => !/\.(spec|integration-spec)\.ts$/.test(file) && !file.includes(`${path.sep}testing${path.sep}`),
    );
    const undeclared = shipped.flatMap((file) =>
      [...importedPackages(file)].filter(([name, typeOnly]) => !declared.has(name) && !typeOnly).map(([name]) => `${path.relative(root, file)}: ${name}`),
    );
    expect(undeclared).toEqual([]);
  });
});
