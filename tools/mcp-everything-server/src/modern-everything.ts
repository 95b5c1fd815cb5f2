// The everything server of the 2026-07-28 revision, on the v2 SDK line (@modelcontextprotocol/server):
// no `initialize`, no session; each POST carries its version in `_meta`; sampling and elicitation
// come back to the client as input requests (InputRequiredResult) and the call is retried with the
// answers; test://watched-resource changes with update_watched_resource and is told on the
// `subscriptions/listen` streams subscribed to it. Strict: a request of an older version gets the revision's UnsupportedProtocolVersion, so
// it is an upstream of that era only (the gateway's tests and `npm start` have one of each era).
import { setTimeout as delay } from 'node:timers/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { acceptedContent, createMcpHandler, inputRequired, inputResponse, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { RED_PIXEL_PNG_BASE64, SILENT_WAV_BASE64 } from './media.ts';
import { WATCHED_RESOURCE_URI } from './resources.ts';

const STEP_MS = 50;

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** test://watched-resource of this revision: its version, and how a change is told to the listen streams subscribed to it. */
interface Watched {
  version: number;
  changed(): void;
}

function buildServer(watched: Watched): McpServer {
  const mcp = new McpServer(
    { name: 'mcp-everything-server', version: '2026.7.28' },
    { instructions: 'The everything server, in the 2026-07-28 revision.', capabilities: { resources: { subscribe: true } } },
  );

  mcp.registerTool('test_simple_text', { description: 'Answers with one text block' }, () => text('This is a simple text response for testing.'));
  // As the official everything server's: a tool with an argument, the demo's first try (the gateway UI's Tools page).
  mcp.registerTool('echo', { description: 'Echoes back the message it is given', inputSchema: { message: z.string().describe('The message to echo') } }, ({ message }) =>
    text(`Echo: ${message}`),
  );
  mcp.registerTool('test_image_content', { description: 'Answers with a PNG image' }, () => ({
    content: [{ type: 'image' as const, data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' }],
  }));
  mcp.registerTool('test_audio_content', { description: 'Answers with a WAV sound' }, () => ({
    content: [{ type: 'audio' as const, data: SILENT_WAV_BASE64, mimeType: 'audio/wav' }],
  }));
  mcp.registerTool('test_error_handling', { description: 'Always fails, as a tool result with isError' }, () => ({
    isError: true,
    content: [{ type: 'text' as const, text: 'This tool intentionally returns an error for testing' }],
  }));
  mcp.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100 when given a progress token' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await delay(STEP_MS);
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
      }
    }
    return text('Tool with progress executed successfully');
  });
  // Routing arguments mirrored into Mcp-Param-* headers (x-mcp-header), which the server checks against the body.
  mcp.registerTool(
    'test_custom_headers',
    {
      description: 'Echoes its region and priority; both travel in Mcp-Param-* headers too',
      inputSchema: z.object({
        region: z.string().describe('Where to route the call').meta({ 'x-mcp-header': 'Region' }),
        priority: z.number().int().optional().describe('How urgent the call is').meta({ 'x-mcp-header': 'Priority' }),
      }),
    },
    ({ region, priority }) => text(`region ${region}, priority ${priority ?? 'none'}`),
  );
  mcp.registerTool(
    'test_sampling',
    {
      description: "Asks the client's LLM for a completion (an input request) and answers with what it said",
      inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
    },
    ({ prompt }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'llm');
      if (answer.kind !== 'sampling') {
        return inputRequired({ inputRequests: { llm: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 }) } });
      }
      const content = answer.result.content;
      const said = !Array.isArray(content) && content.type === 'text' ? content.text : '[non-text]';
      return text(`LLM response: ${said}`);
    },
  );
  mcp.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user for a username and an email address (an input request)',
      inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
    },
    ({ message }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'user');
      if (answer.kind !== 'elicit') {
        return inputRequired({
          inputRequests: {
            user: inputRequired.elicit({
              message,
              requestedSchema: {
                type: 'object',
                properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
                required: ['username', 'email'],
              },
            }),
          },
        });
      }
      const content = acceptedContent(ctx.mcpReq.inputResponses, 'user');
      return text(`User response: ${answer.action}${content ? ` ${JSON.stringify(content)}` : ''}`);
    },
  );

  mcp.registerTool('update_watched_resource', { description: 'Changes test://watched-resource and tells every subscriptions/listen stream subscribed to it' }, () => {
    watched.version += 1;
    watched.changed();
    return text(`${WATCHED_RESOURCE_URI} is now at version ${watched.version}`);
  });

  mcp.registerResource(
    'watched-resource',
    WATCHED_RESOURCE_URI,
    { description: 'A resource that can be subscribed to; update_watched_resource changes it', mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Version ${watched.version} of the watched resource.` }],
    }),
  );
  mcp.registerResource('static-text', 'test://static-text', { description: 'A static text resource', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  mcp.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data for any id', mimeType: 'application/json' },
    (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
    }),
  );
  mcp.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  return mcp;
}

/** A node:http handler serving the revision at the MCP endpoint: one McpServer per request. */
export function modernHandler(): { handle(req: IncomingMessage, res: ServerResponse): Promise<void>; close(): Promise<void> } {
  const watched: Watched = { version: 0, changed: () => handler.notify.resourceUpdated(WATCHED_RESOURCE_URI) };
  const handler = createMcpHandler(() => buildServer(watched), { legacy: 'reject' });
  const node = toNodeHandler(handler);
  return { handle: (req, res) => node(req, res), close: () => handler.close() };
}
