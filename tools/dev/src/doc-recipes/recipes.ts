// The recipes of a Markdown document as a reader runs them: every fenced code block, in document
// order, with what the test does with it. A block is run (`sh` with bash, `js` as an ES module with
// node), saved where the text before it says (`<!-- saved as ~/.codex/config.toml -->`), or
// skipped because the text says why (`<!-- not run: why -->`). Any other block is an error naming
// its line, so a recipe added later cannot escape its test by being in a language nobody runs.
//
// The fences are found by a few lines of scanning rather than a Markdown library: only top-level
// ``` and ~~~ fences are recipes in our docs, and a fence this scanner cannot close is an error.

export type RecipeAction =
  /** Run with bash, in the reader's shell (variables carry over to the next blocks). */
  | { kind: 'shell' }
  /** Saved as a `.mjs` file and run with node from the reader's shell. */
  | { kind: 'module' }
  /** Written to this path (`~` is the reader's home) before the next blocks run. */
  | { kind: 'file'; path: string }
  /** Not run, for the reason the document gives. */
  | { kind: 'skip'; reason: string };

export interface Recipe {
  /** `docs/clients.md:42`: where the block's opening fence is. */
  where: string;
  language: string;
  code: string;
  action: RecipeAction;
}

interface Block {
  line: number;
  language: string;
  code: string;
  /** The HTML comment on the last non-blank line before the fence, if any. */
  marker: string | undefined;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*([\s\S]*?)\s*-->\s*$/;

function blocksOf(markdown: string, file: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const [, fence = '', language = ''] = FENCE.exec(lines[index] ?? '') ?? [];
    if (!fence) continue;
    const before = lines.slice(0, index).filter((line) => line.trim() !== '');
    const marker = MARKER.exec(before[before.length - 1] ?? '')?.[1];
    const closing = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`);
    const close = lines.findIndex((line, at) => at > index && closing.test(line));
    if (close === -1) throw new Error(`${file}:${index + 1}: a code block that is never closed`);
    blocks.push({ line: index + 1, language: language.toLowerCase(), code: lines.slice(index + 1, close).join('\n') + '\n', marker });
    index = close;
  }
  return blocks;
}

function actionOf(block: Block): RecipeAction | undefined {
  const [, reason] = /^not run:\s*(\S[\s\S]*)$/.exec(block.marker ?? '') ?? [];
  if (reason) return { kind: 'skip', reason };
  const [, savedAs] = /^saved as\s+(\S+)$/.exec(block.marker ?? '') ?? [];
  if (savedAs) return { kind: 'file', path: savedAs };
  if (['sh', 'bash', 'shell'].includes(block.language)) return { kind: 'shell' };
  if (['js', 'mjs', 'javascript'].includes(block.language)) return { kind: 'module' };
  return undefined;
}

/**
 * Every code block of `markdown` as a recipe, in document order. Throws naming every block the
 * test could not run and the document does not mark (`<!-- not run: why -->` or `<!-- saved as path -->`).
 */
export function recipesOf(markdown: string, file: string): Recipe[] {
  const recipes: Recipe[] = [];
  const unrunnable: string[] = [];
  for (const block of blocksOf(markdown, file)) {
    const where = `${file}:${block.line}`;
    const action = actionOf(block);
    if (action) recipes.push({ where, language: block.language, code: block.code, action });
    else unrunnable.push(`${where} (\`\`\`${block.language || 'with no language'})`);
  }
  if (unrunnable.length > 0) {
    throw new Error(
      `code blocks no test runs: ${unrunnable.join(', ')}; make them sh or js recipes, or say before each ` +
        '<!-- not run: why --> (or <!-- saved as path --> for a file a later recipe reads)',
    );
  }
  return recipes;
}
