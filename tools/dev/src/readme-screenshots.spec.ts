import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Issue 34 asks for "README screenshots of each page": every page a UI's navigation lists has a
// link in the README's list of screenshots, the picture is in docs/screenshots/, and
// `npm run screenshots` (readme-screenshots.mts) is the one that takes it again.
const root = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const UIS = [
  { app: 'control-plane-web', prefix: 'control-plane' },
  { app: 'ai-gateway-web', prefix: 'ai-gateway' },
  { app: 'mcp-gateway-web', prefix: 'mcp-gateway' },
];

/** The pages of a UI's navigation (`{ to: '/keys', label: 'Keys' }` in its routes.tsx). */
function navigationPages(app: string): string[] {
  const routes = read(`apps/${app}/src/app/routes.tsx`);
  return [...routes.matchAll(/\{ to: '[^']*', label: '([^']+)'/g)].map((match) => match[1] ?? '');
}

describe("the README's screenshots", () => {
  const readme = read('README.md');
  const taker = read('tools/dev/src/readme-screenshots.mts');

  it.each(UIS)('show every page of $app', ({ app, prefix }) => {
    const pages = navigationPages(app);
    expect(pages.length).toBeGreaterThan(3);
    const missing = pages.filter((label) => {
      const link = new RegExp(`\\[${label}\\]\\((docs/screenshots/${prefix}-[a-z0-9-]+\\.png)\\)`).exec(readme);
      const file = link?.[1];
      return !file || !existsSync(path.join(root, file)) || !taker.includes(`file: '${path.basename(file, '.png')}'`);
    });
    expect(missing).toEqual([]);
  });
});
