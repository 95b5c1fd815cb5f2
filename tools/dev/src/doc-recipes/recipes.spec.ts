import fs from 'node:fs';
import path from 'node:path';
import { recipesOf } from './recipes.ts';

const doc = (...lines: string[]) => lines.join('\n');

describe("a document's recipes", () => {
  it('runs shell and JavaScript blocks, saves a marked file and skips a marked block, in document order', () => {
    const recipes = recipesOf(
      doc(
        '# Title',
        '',
        '```sh',
        'export KEY=$(cat key)',
        '```',
        '',
        '```js',
        "import OpenAI from 'openai';",
        '```',
        '',
        '<!-- saved as ~/.codex/config.toml -->',
        '',
        '```toml',
        'model = "gpt-4o-mini"',
        '```',
        '',
        '<!-- not run: the answer of the request above -->',
        '```http',
        'HTTP/1.1 200 OK',
        '```',
      ),
      'docs/example.md',
    );
    expect(recipes).toEqual([
      { where: 'docs/example.md:3', language: 'sh', code: 'export KEY=$(cat key)\n', action: { kind: 'shell' } },
      { where: 'docs/example.md:7', language: 'js', code: "import OpenAI from 'openai';\n", action: { kind: 'module' } },
      { where: 'docs/example.md:13', language: 'toml', code: 'model = "gpt-4o-mini"\n', action: { kind: 'file', path: '~/.codex/config.toml' } },
      { where: 'docs/example.md:18', language: 'http', code: 'HTTP/1.1 200 OK\n', action: { kind: 'skip', reason: 'the answer of the request above' } },
    ]);
  });

  it('refuses every block it cannot run that the document does not mark, naming each', () => {
    const unmarked = doc('```toml', 'model = "x"', '```', '', 'Some text.', '', '```', 'plain', '```', '', '```sh', 'true', '```');
    expect(() => recipesOf(unmarked, 'docs/example.md')).toThrow(/docs\/example\.md:1 \(```toml\), docs\/example\.md:7 \(```with no language\); make them sh or js recipes/);
  });

  it('takes a marker only from the line right before the block: prose between it and the block unmarks it', () => {
    expect(() => recipesOf(doc('<!-- not run: an example -->', 'Some text.', '```json', '{}', '```'), 'docs/example.md')).toThrow(/docs\/example\.md:3 \(```json\)/);
  });

  it('sees a longer fence through a shorter one inside it, and refuses a block that is never closed', () => {
    expect(recipesOf(doc('````sh', '```', 'echo inner', '```', '````'), 'docs/example.md')).toEqual([
      { where: 'docs/example.md:1', language: 'sh', code: '```\necho inner\n```\n', action: { kind: 'shell' } },
    ]);
    expect(() => recipesOf(doc('text', '```sh', 'echo never closed'), 'docs/example.md')).toThrow('docs/example.md:2: a code block that is never closed');
  });

  // The documents npm-start.integration-spec.ts runs; here without a stack, for `npm run test:unit`.
  it.each(['README.md', 'docs/clients.md', 'docs/ai-gateway.md', 'docs/control-plane.md'])('finds every block of %s runnable or marked', (file) => {
    const recipes = recipesOf(fs.readFileSync(path.resolve(__dirname, '../../../..', file), 'utf8'), file);
    expect(recipes.filter((recipe) => recipe.action.kind !== 'skip').length).toBeGreaterThan(0);
  });
});
