// What the user typed, checked once: a Command to run, help to print, or a UsageError (exit code 2).
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export type Command =
  | { kind: 'help'; text: string }
  | { kind: 'wrapper'; urls: URL[]; authorization?: string }
  | { kind: 'translate-stdio'; command: string; host: string; port: number; streamableHttp: boolean; sse: boolean };

export const GENERAL_HELP = `Usage: arbor-mcp <command> [options]

Commands:
  wrapper     a stdio MCP server that forwards to one or more MCP gateway URLs
  translate   expose a local stdio MCP server over HTTP, or bridge a remote URL to stdio

Run "arbor-mcp <command> --help" for a command's options.
`;

export const WRAPPER_HELP = `Usage: arbor-mcp wrapper --url <MCP URL> [--url <MCP URL> …] [--auth <token>]

A stdio MCP server for clients that only speak stdio. Everything is forwarded to the URL(s) over
Streamable HTTP, or legacy HTTP+SSE when the URL ends in /sse or the server refuses Streamable HTTP.
With several URLs their catalogues are merged; see README.md for how names that collide are prefixed.

Options:
  --url <url>     gateway MCP URL, e.g. http://localhost:4444/servers/<id>/mcp (repeatable)
  --auth <value>  Authorization header: "Bearer <token>", or a bare token (sent as Bearer)
  -h, --help      this help

Environment: MCP_SERVER_URL (comma-separated URLs, when no --url), MCP_AUTH (when no --auth).
Only JSON-RPC is written to stdout; diagnostics go to stderr.
`;

export const TRANSLATE_HELP = `Usage:
  arbor-mcp translate --stdio "<command>" --port <n> [--expose-streamable-http] [--expose-sse] [--host <host>]
  arbor-mcp translate --url <MCP URL> [--auth <token>]

With --stdio: runs <command> (through the shell) as a stdio MCP server, one process per client
session, and serves it as Streamable HTTP at /mcp and/or legacy HTTP+SSE at /sse + /message.
Neither --expose flag means both. --port 0 picks a free port; the address is printed on stderr.
With --url: bridges a remote MCP server to stdio (the same as "arbor-mcp wrapper --url <url>").

Options:
  --stdio <command>           the stdio MCP server to run
  --expose-streamable-http    serve Streamable HTTP at /mcp
  --expose-sse                serve legacy HTTP+SSE at /sse and /message
  --port <n>                  port to listen on (required with --stdio)
  --host <host>               address to listen on (default 127.0.0.1)
  --url <url>                 remote MCP URL to bridge to stdio
  --auth <value>              Authorization for --url: "Bearer <token>" or a bare token (or MCP_AUTH)
  -h, --help                  this help
`;

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Command {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('a command is required: wrapper or translate');
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'help', text: GENERAL_HELP };
  if (name === 'wrapper') return parseWrapper(rest, env);
  if (name === 'translate') return parseTranslate(rest, env);
  throw new UsageError(`unknown command "${name}": expected wrapper or translate`);
}

function parseWrapper(args: string[], env: NodeJS.ProcessEnv): Command {
  const { values } = parse(args, {
    url: { type: 'string', multiple: true },
    auth: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { kind: 'help', text: WRAPPER_HELP };
  const urls = values.url?.length
    ? values.url
    : (env['MCP_SERVER_URL'] ?? '')
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean);
  if (urls.length === 0) throw new UsageError('wrapper needs at least one --url (or MCP_SERVER_URL)');
  return { kind: 'wrapper', urls: urls.map(httpUrl), authorization: authorization(values.auth ?? env['MCP_AUTH']) };
}

function parseTranslate(args: string[], env: NodeJS.ProcessEnv): Command {
  const { values } = parse(args, {
    stdio: { type: 'string' },
    url: { type: 'string' },
    auth: { type: 'string' },
    'expose-streamable-http': { type: 'boolean' },
    'expose-sse': { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { kind: 'help', text: TRANSLATE_HELP };
  if ((values.stdio === undefined) === (values.url === undefined)) throw new UsageError('translate needs exactly one of --stdio or --url');
  if (values.url !== undefined) {
    const serverOnly = ['port', 'host', 'expose-streamable-http', 'expose-sse'].filter((option) => option in values);
    if (serverOnly.length) throw new UsageError(`--${serverOnly[0]} only applies with --stdio`);
    return { kind: 'wrapper', urls: [httpUrl(values.url)], authorization: authorization(values.auth ?? env['MCP_AUTH']) };
  }
  if (values.auth !== undefined) throw new UsageError('--auth only applies with --url');
  if (!values.stdio?.trim()) throw new UsageError('--stdio needs a command');
  if (values.port === undefined) throw new UsageError('--port is required with --stdio');
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${values.port}"`);
  const neither = !values['expose-streamable-http'] && !values['expose-sse'];
  return {
    kind: 'translate-stdio',
    command: values.stdio,
    host: values.host || '127.0.0.1',
    port,
    streamableHttp: neither || Boolean(values['expose-streamable-http']),
    sse: neither || Boolean(values['expose-sse']),
  };
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

function parse<T extends OptionSpec>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    // node:util's messages name the option and the problem; its hint about "--" does not apply here.
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

function httpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`not a URL: "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`not an http(s) URL: "${value}"`);
  return url;
}

/** A bare token is sent as a bearer token; a value with a scheme ("Bearer x", "Basic y") as it is. */
function authorization(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  return /^\S+\s+\S/.test(trimmed) ? trimmed : `Bearer ${trimmed}`;
}
