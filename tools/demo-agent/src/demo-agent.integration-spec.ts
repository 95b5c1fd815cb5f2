// The demo agent as an A2A client meets it: the official SDK client, from its card.
import { randomUUID } from 'node:crypto';
import { Role, type SendMessageRequest, type StreamResponse, TaskState } from '@a2a-js/sdk';
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

  /** The official client from the agent's card, with its token. */
  const connect = () => {
    const fetchImpl: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: 'Bearer demo-token' } });
    return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] })).createFromUrl(agent.url);
  };

  it('answers a message, and streams a slow one as a task with status updates and an artifact', async () => {
    const client = await connect();
    const answer = await client.sendMessage(ask('hi'));
    expect('parts' in answer && answer.parts[0]?.content).toEqual({ $case: 'text', value: 'You said: hi' });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(ask('slow'))) events.push(event);
    expect(events.map((event) => event.payload?.$case)).toEqual(['task', 'statusUpdate', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  it('asks once for a date when asked to book, and completes that task when a message with its id answers', async () => {
    const client = await connect();
    const asked = await client.sendMessage(ask('book a room'));
    if (!('status' in asked)) throw new Error('expected a task');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'For which date?' });
    const answer = ask('Friday');
    if (answer.message) Object.assign(answer.message, { taskId: asked.id, contextId: asked.contextId });
    const booked = await client.sendMessage(answer);
    if (!('status' in booked)) throw new Error('expected a task');
    expect({ id: booked.id, state: booked.status?.state }).toEqual({ id: asked.id, state: TaskState.TASK_STATE_COMPLETED });
    expect(booked.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'Booked for Friday.' });
  });

  it('refuses a request without its token', async () => {
    const response = await fetch(`${agent.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
  });
});
