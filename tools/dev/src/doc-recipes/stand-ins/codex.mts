// Stands in for Codex CLI (`codex`) when docs/clients.md's recipe runs in a test: the CLI is not
// installed here, so this checks what the recipe configures for it. Codex reads
// `$CODEX_HOME/config.toml` (`~/.codex/config.toml`): `model`, and the provider `model_provider`
// names under `[model_providers]`, whose `base_url`, `env_key` (the variable holding the key) and
// `wire_api` it uses. It speaks only the Responses API: `POST <base_url>/responses`, streamed.
// That call is made here once with the configured alias and key; a missing setting, a wire API
// other than `responses`, or an answer that is not a completed stream fails with exit code 1.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';

interface Provider {
  base_url?: string;
  env_key?: string;
  wire_api?: string;
}

async function main(): Promise<void> {
  const [command, ...prompt] = process.argv.slice(2);
  if (command !== 'exec') throw new Error(`only \`codex exec <prompt>\` is stood in for, not \`codex ${command ?? ''}\``);
  const file = path.join(process.env['CODEX_HOME'] || path.join(os.homedir(), '.codex'), 'config.toml');
  const config = parse(fs.readFileSync(file, 'utf8')) as { model?: string; model_provider?: string; model_providers?: Record<string, Provider> };
  const provider = config.model_providers?.[config.model_provider ?? ''];
  if (!config.model || !provider?.base_url || !provider.env_key) throw new Error(`${file}: model, model_provider and its base_url and env_key are needed`);
  if (provider.wire_api !== 'responses') throw new Error(`${file}: Codex speaks only the Responses API (wire_api = "responses"), not ${provider.wire_api}`);
  const key = process.env[provider.env_key];
  if (!key) throw new Error(`${provider.env_key} (the provider's env_key) is not set`);
  const url = `${provider.base_url.replace(/\/$/, '')}/responses`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: config.model,
      instructions: 'You are Codex.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt.join(' ') }] }],
      stream: true,
      store: false,
    }),
  });
  const stream = await response.text();
  if (response.status !== 200 || !stream.includes('response.completed')) throw new Error(`POST ${url} on ${config.model}: ${response.status}\n${stream}`);
  process.stdout.write(`codex (stand-in): ${config.model} answered on ${url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`codex (stand-in): ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
