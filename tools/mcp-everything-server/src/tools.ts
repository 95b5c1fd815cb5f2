// The tools: names, arguments and answers are the ones the conformance suite's server scenarios
// call (tools-call-*, elicitation-sep1034/sep1330, json-schema-2020-12, server-sse-polling), plus
// update_watched_resource, which lets a client cause a resource update notification.
import { setTimeout as delay } from 'node:timers/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageResultSchema, ElicitResultSchema, type CallToolResult, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Everything, EverythingSession, RequestExtra } from './everything-session.ts';
import { RED_PIXEL_PNG_BASE64, SILENT_WAV_BASE64 } from './media.ts';

// The pauses between the notifications of the logging and progress tools, so that a client sees
// them arrive one by one during the call.
const STEP_MS = 50;

// How long test_reconnection works after closing its stream: the answer is produced while the
// client is away and reaches it when it resumes with Last-Event-ID.
const RECONNECTION_WORK_MS = 200;

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const toolError = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

// Advertised verbatim (SEP-1613): zod validates the same shape, and .meta() makes the listing the
// 2020-12 document itself rather than zod's draft-07 rendering.
const JSON_SCHEMA_2020_12_INPUT = z
  .strictObject({
    name: z.string().optional(),
    address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
  })
  .meta({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: {
      address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
    },
    properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
    additionalProperties: false,
  });

// SEP-1034: a default for every primitive type.
const SCHEMA_WITH_DEFAULTS: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
};

// SEP-1330: the five ways to offer a choice.
const SCHEMA_WITH_ENUMS: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Untitled single choice', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Titled single choice',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Titled single choice, the deprecated way',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multiple choice',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multiple choice',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

// Elicitation goes on the stream of the tool call that needs it (extra.sendRequest), not on the
// session's GET stream, which the client may not have opened.
async function elicit(
  mcp: McpServer,
  extra: RequestExtra,
  message: string,
  requestedSchema: ElicitRequestFormParams['requestedSchema'],
  answerLabel = 'Elicitation completed',
): Promise<CallToolResult> {
  if (!mcp.server.getClientCapabilities()?.elicitation) return toolError('The client does not support elicitation.');
  const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } }, ElicitResultSchema);
  return text(`${answerLabel}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

export function registerTools(mcp: McpServer, session: EverythingSession, everything: Everything): void {
  mcp.registerTool('test_simple_text', { description: 'Answers with one text block' }, () => text('This is a simple text response for testing.'));
  // As the official everything server's: a tool with an argument, the demo's first try (the gateway UI's Tools page).
  mcp.registerTool('echo', { description: 'Echoes back the message it is given', inputSchema: { message: z.string().describe('The message to echo') } }, ({ message }) =>
    text(`Echo: ${message}`),
  );

  mcp.registerTool('test_image_content', { description: 'Answers with a PNG image' }, () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' }],
  }));

  mcp.registerTool('test_audio_content', { description: 'Answers with a WAV sound' }, () => ({
    content: [{ type: 'audio', data: SILENT_WAV_BASE64, mimeType: 'audio/wav' }],
  }));

  mcp.registerTool('test_embedded_resource', { description: 'Answers with an embedded text resource' }, () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));

  mcp.registerTool('test_multiple_content_types', { description: 'Answers with text, an image and an embedded resource' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
    ],
  }));

  mcp.registerTool('test_tool_with_logging', { description: 'Sends three info log notifications while it runs' }, async (extra) => {
    await session.log(extra, 'info', 'Tool execution started');
    await delay(STEP_MS);
    await session.log(extra, 'info', 'Tool processing data');
    await delay(STEP_MS);
    await session.log(extra, 'info', 'Tool execution completed');
    return text('Tool with logging executed successfully');
  });

  mcp.registerTool('test_error_handling', { description: 'Always fails, as a tool result with isError' }, () => toolError('This tool intentionally returns an error for testing'));

  mcp.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100 when given a progress token' }, async (extra) => {
    const progressToken = extra._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await delay(STEP_MS);
      if (progressToken !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
      }
    }
    return text('Tool with progress executed successfully');
  });

  mcp.registerTool(
    'test_sampling',
    {
      description: "Asks the client's LLM (sampling/createMessage) and answers with what it said",
      inputSchema: { prompt: z.string().describe('The prompt to send to the LLM') },
    },
    async ({ prompt }, extra) => {
      if (!mcp.server.getClientCapabilities()?.sampling) return toolError('The client does not support sampling.');
      const answer = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
        },
        CreateMessageResultSchema,
      );
      return text(`LLM response: ${answer.content.type === 'text' ? answer.content.text : `[${answer.content.type}]`}`);
    },
  );

  mcp.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user (elicitation/create) for a username and an email address',
      inputSchema: { message: z.string().describe('The message to show the user') },
    },
    ({ message }, extra) =>
      elicit(
        mcp,
        extra,
        message,
        {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
        'User response',
      ),
  );

  mcp.registerTool('test_elicitation_sep1034_defaults', { description: 'Elicits a form whose fields all have defaults (SEP-1034)' }, (extra) =>
    elicit(mcp, extra, 'Please review the defaults and accept', SCHEMA_WITH_DEFAULTS),
  );

  mcp.registerTool('test_elicitation_sep1330_enums', { description: 'Elicits a form with every kind of choice (SEP-1330)' }, (extra) =>
    elicit(mcp, extra, 'Please choose', SCHEMA_WITH_ENUMS),
  );

  mcp.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: JSON_SCHEMA_2020_12_INPUT,
    },
    (args) => text(`Received: ${JSON.stringify(args)}`),
  );

  // SEP-1699: closes its SSE stream mid-call. The SDK offers closeSSEStream only to clients that
  // can resume (an event store and MCP 2025-11-25 or later); others get the answer on the open stream.
  mcp.registerTool('test_reconnection', { description: 'Closes its SSE stream mid-call and answers after the client reconnects (SEP-1699)' }, async (extra) => {
    extra.closeSSEStream?.();
    await delay(RECONNECTION_WORK_MS);
    return text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
  });

  mcp.registerTool(
    'update_watched_resource',
    {
      description: 'Changes test://watched-resource and notifies every session subscribed to it',
    },
    async (extra) => text(`test://watched-resource is now at version ${await everything.changeWatched(session, extra)}`),
  );
}
