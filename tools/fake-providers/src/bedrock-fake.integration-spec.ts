// The Bedrock fake against AWS's own client (@aws-sdk/client-bedrock-runtime): if AWS's SDK signs,
// decodes the event streams and reads the errors of the fake as it does Bedrock's, the gateway's
// Bedrock adapter is tested against Bedrock's real wire format.
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { FAKE_AWS_CREDENTIALS } from './bedrock-fake.ts';
import { startFakeProviders, type FakeProviders } from './fake-providers.ts';

const [accessKeyId, secretAccessKey] = Object.entries(FAKE_AWS_CREDENTIALS)[0] as [string, string];

describe("the Bedrock fake through AWS's BedrockRuntimeClient", () => {
  let fake: FakeProviders;
  let client: BedrockRuntimeClient;
  // HTTP/1.1, as the fake serves (the SDK's default handler speaks HTTP/2, which Bedrock also serves).
  const clientWith = (secret: string) =>
    new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: `${fake.url}/bedrock`,
      credentials: { accessKeyId, secretAccessKey: secret },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });

  beforeAll(async () => {
    fake = await startFakeProviders();
    client = clientWith(secretAccessKey);
  });

  afterAll(() => fake.close());

  it("answers Converse for a request AWS's SDK signed, and refuses a wrong secret as Bedrock does", async () => {
    const answer = await client.send(new ConverseCommand({ modelId: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: [{ text: 'hello' }] }] }));
    expect(answer.output?.message?.content).toEqual([{ text: 'fake answer from amazon.nova-lite-v1:0' }]);
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.usage).toMatchObject({ inputTokens: 7, outputTokens: 5, totalTokens: 12 });

    const refused = await clientWith('wrong')
      .send(new ConverseCommand({ modelId: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: [{ text: 'x' }] }] }))
      .catch((e: unknown) => e);
    expect((refused as Error).name).toBe('InvalidSignatureException');
    expect((refused as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(403);
  });

  it("streams ConverseStream as event-stream frames AWS's SDK decodes, a tool call included", async () => {
    const answer = await client.send(
      new ConverseStreamCommand({
        modelId: 'tokens-9-3',
        messages: [{ role: 'user', content: [{ text: 'weather?' }] }],
        toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] },
      }),
    );
    let text = '';
    let input = '';
    let stop: string | undefined;
    let total: number | undefined;
    for await (const event of answer.stream ?? []) {
      text += event.contentBlockDelta?.delta?.text ?? '';
      input += event.contentBlockDelta?.delta?.toolUse?.input ?? '';
      stop = event.messageStop?.stopReason ?? stop;
      total = event.metadata?.usage?.totalTokens ?? total;
    }
    expect({ text, input, stop, total }).toEqual({ text: 'fake answer from tokens-9-3', input: '{"argument":"fake"}', stop: 'tool_use', total: 12 });
  });

  it("ends a stream with an exception frame that AWS's SDK throws as ThrottlingException", async () => {
    const answer = await client.send(new ConverseStreamCommand({ modelId: 'fail-midstream', messages: [{ role: 'user', content: [{ text: 'x' }] }] }));
    const error = await (async () => {
      for await (const _event of answer.stream ?? []) {
        /* read on */
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottlingException);
  });

  it("answers InvokeModel on Claude in Anthropic's format, streamed as chunk events", async () => {
    const body = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] };
    const whole = await client.send(new InvokeModelCommand({ modelId: 'anthropic.claude-3-haiku-20240307-v1:0', body: JSON.stringify(body) }));
    expect(JSON.parse(Buffer.from(whole.body).toString('utf8'))).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'fake answer from anthropic.claude-3-haiku-20240307-v1:0' }],
    });

    const streamed = await client.send(new InvokeModelWithResponseStreamCommand({ modelId: 'anthropic.claude-3-haiku-20240307-v1:0', body: JSON.stringify(body) }));
    const types: string[] = [];
    for await (const event of streamed.body ?? []) {
      if (event.chunk?.bytes) types.push((JSON.parse(Buffer.from(event.chunk.bytes).toString('utf8')) as { type: string }).type);
    }
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');

    const refused = await client
      .send(new InvokeModelCommand({ modelId: 'anthropic.claude-3-haiku-20240307-v1:0', body: JSON.stringify({ ...body, model: 'x' }) }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationException);
  });

  it("answers the failures a model id asks for with Bedrock's exceptions", async () => {
    const converse = (modelId: string) => client.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'x' }] }] })).catch((e: unknown) => e);
    expect(await converse('fail-throttling')).toBeInstanceOf(ThrottlingException);
    expect(await converse('fail-access')).toBeInstanceOf(AccessDeniedException);
    expect(await converse('fail-context')).toBeInstanceOf(ValidationException);
    expect(((await converse('fail-not-ready')) as Error).name).toBe('ModelNotReadyException');
  });
});
