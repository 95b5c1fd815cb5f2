import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OPENAPI_PATH } from './openapi-document';

/** Each service's API reference: a page that renders its OpenAPI document with Swagger UI. */
export const API_REFERENCE_PATH = '/api/v1/docs';
const ASSETS_PATH = `${API_REFERENCE_PATH}/assets`;

// The page's own start-up script, served as a file: the page's CSP allows no inline script.
const START_SCRIPT = `// Swagger UI on this service's OpenAPI document, named by the page (data-openapi-url).
window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('api-reference');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
  });
});
`;

// The page's own styles, as a file for the same reason (Swagger UI's stylesheet styles the rest).
const PAGE_STYLES = `body { margin: 0; background: #fafafa; }
`;

/** What the page loads, each served from the service itself: Swagger UI's files (swagger-ui-dist, which @nestjs/swagger installs) and the page's own. */
export type ApiReferenceAsset = { file: string } | { text: string };

const swaggerUiDist = (): string => {
  // createRequire, because webpack turns a plain require.resolve into a module id; swagger-ui-dist as @nestjs/swagger resolves it.
  const nestSwagger = createRequire(__filename).resolve('@nestjs/swagger');
  return dirname(createRequire(nestSwagger).resolve('swagger-ui-dist/package.json'));
};

export function apiReferenceAssets(): ReadonlyMap<string, { contentType: string; source: ApiReferenceAsset }> {
  const dist = swaggerUiDist();
  return new Map([
    ['swagger-ui.css', { contentType: 'text/css; charset=utf-8', source: { file: join(dist, 'swagger-ui.css') } }],
    ['swagger-ui-bundle.js', { contentType: 'text/javascript; charset=utf-8', source: { file: join(dist, 'swagger-ui-bundle.js') } }],
    ['api-reference.js', { contentType: 'text/javascript; charset=utf-8', source: { text: START_SCRIPT } }],
    ['api-reference.css', { contentType: 'text/css; charset=utf-8', source: { text: PAGE_STYLES } }],
  ]);
}

/** The page: no inline script or style, everything from this service's own origin. */
export function apiReferencePage(title: string): string {
  const escaped = title.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escaped} — API reference</title>
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css" />
    <link rel="stylesheet" href="${ASSETS_PATH}/api-reference.css" />
  </head>
  <body>
    <main id="api-reference" data-openapi-url="${OPENAPI_PATH}"></main>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${ASSETS_PATH}/api-reference.js"></script>
  </body>
</html>
`;
}
