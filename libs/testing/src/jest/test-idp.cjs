// The dev identity provider, started in the jest process itself (Node runs its TypeScript
// directly). The path is computed so no bundler or lint rule mistakes it for a library import.
const path = require('node:path');
const { pathToFileURL } = require('node:url');

async function startTestIdp() {
  const entry = path.join(__dirname, '../../../../tools/dev-idp/src', 'dev-idp.ts');
  const { startDevIdp } = await import(pathToFileURL(entry).href);
  const idp = await startDevIdp({ port: 0, host: '127.0.0.1' });
  return { issuer: idp.issuer, stop: () => idp.close() };
}

module.exports = { startTestIdp };
