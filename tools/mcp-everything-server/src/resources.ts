// The resources the conformance suite reads (resources-*): a text and a binary resource, a template
// that substitutes its {id}, and test://watched-resource, which can be subscribed to and changes
// when a client calls update_watched_resource.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Everything } from './everything-session.ts';
import { RED_PIXEL_PNG_BASE64 } from './media.ts';

export const WATCHED_RESOURCE_URI = 'test://watched-resource';

const TEMPLATE_IDS = ['123', '456', '789'];

export function registerResources(mcp: McpServer, everything: Everything): void {
  mcp.registerResource('static-text', 'test://static-text', { description: 'A static text resource', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));

  mcp.registerResource('static-binary', 'test://static-binary', { description: 'A static binary resource (a PNG image)', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG_BASE64 }],
  }));

  mcp.registerResource(
    'watched-resource',
    WATCHED_RESOURCE_URI,
    {
      description: 'A resource that can be subscribed to; update_watched_resource changes it',
      mimeType: 'text/plain',
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: everything.watchedText }],
    }),
  );

  const template = new ResourceTemplate('test://template/{id}/data', {
    list: undefined,
    complete: { id: (value) => TEMPLATE_IDS.filter((id) => id.startsWith(value)) },
  });
  mcp.registerResource('template-data', template, { description: 'Data for any id, substituted into the answer', mimeType: 'application/json' }, (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
  }));
}
