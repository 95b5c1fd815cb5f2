import { All, Controller, Get, INestApplication } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { launchTestBrowser } from '@arbor/testing';
import { ErrorEnvelopeFilter } from '../errors/error-envelope.filter';
import { OpenApiModule } from './openapi.module';

@Controller()
class ExampleController {
  @Get('things')
  things(): string[] {
    return [];
  }

  // A route of any method, as the AI gateway's not-served fine-tuning paths are.
  @All(['v1/fine_tuning', 'v1/fine_tuning/*path'])
  notServed(): never {
    throw new Error('not served');
  }
}

interface PathItem {
  [method: string]: { operationId?: string; description?: string };
}

/** The `src`/`href` of every script and stylesheet the page loads, and whether it has inline script or style. */
function loadedBy(html: string): { sources: string[]; inline: string[] } {
  const sources = [...html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>|<style\b[^>]*>|\sstyle="|\son[a-z]+="/g)].map((match) => match[0]);
  return { sources, inline };
}

describe('the API reference page (GET /api/v1/docs) and the OpenAPI document it renders', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [OpenApiModule.forService({ title: 'Example <service>', description: 'For the test.' })],
      controllers: [ExampleController],
      providers: [{ provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(() => app.close());

  it("serves an HTML page that loads everything from the service itself, with no inline script or style, under the suite's CSP", async () => {
    const response = await fetch(`${url}/api/v1/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
    const html = await response.text();
    expect(html).toContain('<title>Example &#60;service&#62; — API reference</title>');
    expect(html).toContain('data-openapi-url="/api/v1/openapi.json"');
    const { sources, inline } = loadedBy(html);
    expect(inline).toEqual([]);
    expect(sources).toEqual(expect.arrayContaining(['/api/v1/docs/assets/swagger-ui-bundle.js', '/api/v1/docs/assets/swagger-ui.css']));
    for (const source of sources) {
      expect(source).toMatch(/^\/api\/v1\/docs\/assets\//);
      const asset = await fetch(`${url}${source}`);
      expect({ source, status: asset.status, policy: asset.headers.get('content-security-policy') }).toEqual({ source, status: 200, policy });
      expect(asset.headers.get('content-type')).toMatch(source.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect((await asset.text()).length).toBeGreaterThan(0);
    }
  });

  it('answers a file it does not have with 404 in the error envelope, and never a file outside its list', async () => {
    for (const file of ['index.html', '..%2Fpackage.json', 'swagger-ui-bundle.js.map']) {
      const response = await fetch(`${url}/api/v1/docs/assets/${file}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('describes a route of any method once, saying so, not under each of nine methods', async () => {
    const document = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { paths: Record<string, PathItem> };
    // One handler on two paths: each its own operationId, as generated clients need.
    for (const [path, operationId] of [
      ['/v1/fine_tuning', 'ExampleController_notServed'],
      ['/v1/fine_tuning/{path}', 'ExampleController_notServed_2'],
    ]) {
      expect(Object.keys(document.paths[path] ?? {})).toEqual(['post']);
      expect(document.paths[path]?.['post']).toMatchObject({ operationId, description: expect.stringContaining('Any HTTP method') });
    }
    expect(Object.keys(document.paths['/things'] ?? {})).toEqual(['get']);
    expect(Object.keys(document.paths['/api/v1/docs'] ?? {})).toEqual(['get']);
  });

  it('renders the document in Chromium with no Content-Security-Policy refusal and no error', async () => {
    const browser = await launchTestBrowser();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${url}/api/v1/docs`);
      // Swagger UI has read the document when the operations show.
      await page.locator('.opblock-summary-path', { hasText: '/things' }).waitFor({ timeout: 15_000 });
      expect(await page.locator('.opblock-summary-path').count()).toBeGreaterThan(2);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
