// The demo agent as an A2A client meets it: the official SDK client, from its card.
import { randomUUID } from 'node:crypto';
import { Role, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { type DemoAgent, startDemoAgent } from './demo-agent.ts';

const ask = (text: string): SendMessageRequest => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

describe('the demo A2A agent', () => {
  let agent: DemoAgent;

  beforeAll(async () => {
    agent = await startDemoAgent({ token: 'demo-token', stepMs: 10 });
  });

  afterAll(() => agent.close());

  it('answers a message, and streams a slow one as a task with status updates and an artifact', async () => {
    const fetchImpl: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: 'Bearer demo-token' } });
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    ).createFromUrl(agent.url);
    const answer = await client.sendMessage(ask('hi'));
    expect('parts' in answer && answer.parts[0]?.content).toEqual({ $case: 'text', value: 'You said: hi' });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(ask('slow'))) events.push(event);
    expect(events.map((event) => event.payload?.$case)).toEqual(['task', 'statusUpdate', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  it('refuses a request without its token', async () => {
    const response = await fetch(`${agent.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
  });
});
