/**
 * What each service promises about its API reference page (GET /api/v1/docs): public HTML that
 * renders /api/v1/openapi.json, loads every script and stylesheet from the service itself, has no
 * inline script or style, and whose files answer 200 under the page's own strict CSP.
 */
export async function expectServedApiReference(baseUrl: string): Promise<void> {
  const page = await fetch(`${baseUrl}/api/v1/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const policy = page.headers.get('content-security-policy') ?? '';
  expect(policy).toMatch(/(^|; )script-src 'self'(;|$)/);
  expect(policy).toMatch(/(^|; )style-src 'self'(;|$)/);
  const html = await page.text();
  expect(html).toContain('data-openapi-url="/api/v1/openapi.json"');
  expect([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle="/g)].map((match) => match[0])).toEqual([]);
  const sources = [...html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
  expect(sources.length).toBeGreaterThanOrEqual(2);
  for (const source of sources) {
    // From the service itself: a path on its own origin, never another host.
    expect(source).toMatch(/^\/[^/]/);
    const file = await fetch(`${baseUrl}${source}`);
    expect({ source, status: file.status, policy: file.headers.get('content-security-policy') }).toEqual({ source, status: 200, policy });
    await file.arrayBuffer();
  }
  const document = await fetch(`${baseUrl}/api/v1/openapi.json`);
  expect(document.status).toBe(200);
}
