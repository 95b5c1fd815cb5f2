// Stands in for Claude Code (`claude`) when docs/clients.md's recipe runs in a test: the CLI is not
// installed here, so this checks what the recipe configures for it. Claude Code reads
// ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN (sent as a bearer token; ANTHROPIC_API_KEY as
// x-api-key otherwise), and calls `POST /v1/messages?beta=true`, streamed, with its betas, on
// ANTHROPIC_MODEL and on its small model ANTHROPIC_DEFAULT_HAIKU_MODEL. Each of those calls is made
// here once; any variable missing or any answer that is not a whole stream fails with exit code 1.
const env = process.env;

function required(name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const baseUrl = required('ANTHROPIC_BASE_URL').replace(/\/$/, '');
  const token = env['ANTHROPIC_AUTH_TOKEN'];
  const credentials: Record<string, string> = token ? { authorization: `Bearer ${token}` } : { 'x-api-key': required('ANTHROPIC_API_KEY') };
  const models = [required('ANTHROPIC_MODEL'), required('ANTHROPIC_DEFAULT_HAIKU_MODEL')];
  for (const model of models) {
    const response = await fetch(`${baseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        ...credentials,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
      },
      body: JSON.stringify({
        model,
        max_tokens: 1024,
        stream: true,
        messages: [{ role: 'user', content: [{ type: 'text', text: process.argv.slice(2).join(' ') || 'say hello' }] }],
      }),
    });
    const stream = await response.text();
    if (response.status !== 200 || !stream.includes('event: message_stop') || stream.includes('event: error')) {
      throw new Error(`POST ${baseUrl}/v1/messages?beta=true on ${model}: ${response.status}\n${stream}`);
    }
    process.stdout.write(`claude (stand-in): ${model} answered on ${baseUrl}/v1/messages?beta=true\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`claude (stand-in): ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
