#!/usr/bin/env -S node --disable-warning=ExperimentalWarning
// `arbor-mcp wrapper|translate …` (see --help and README.md). In the stdio modes stdout carries
// JSON-RPC only, so everything for a person goes to stderr. The SDK is loaded only once the
// arguments are known good, so --help and mistakes answer at once.
import { parseCommandLine, UsageError, type Command } from './command-line.ts';

// Diagnostics are best effort: a reader that went away must not take the server down with it.
process.stderr.on('error', () => undefined);

function log(line: string): void {
  process.stderr.write(`arbor-mcp: ${line}\n`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const once = (): void => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log(messageOf(error));
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', once);
  process.once('SIGTERM', once);
}

async function runWrapper(command: Extract<Command, { kind: 'wrapper' }>): Promise<void> {
  // stdout is the protocol stream: whatever a dependency logs goes to stderr instead.
  console.log = console.info = console.debug = console.warn;
  const [{ StdioServerTransport }, { pipeToUpstream }, { UpstreamFanOut }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('./wrapper/upstream-pipe.ts'),
    import('./wrapper/upstream-fan-out.ts'),
  ]);
  const stdio = new StdioServerTransport();
  const stop = async (): Promise<void> => {
    await bridge.close();
    await stdio.close();
  };
  const events = {
    log,
    ended: (reason: string) => {
      log(reason);
      stop().finally(() => process.exit(1));
    },
  };
  const bridge =
    command.urls.length === 1 ? pipeToUpstream(stdio, command.urls[0], command.authorization, events) : new UpstreamFanOut(stdio, command.urls, command.authorization, events);
  await stdio.start();
  stopOnSignal(stop);
  // The client closing our stdin is how a stdio server is told to stop.
  process.stdin.once('end', () => process.kill(process.pid, 'SIGTERM'));
}

async function runTranslate(command: Extract<Command, { kind: 'translate-stdio' }>): Promise<void> {
  const [{ exposeStdioServer }, { checkStdioServer }] = await Promise.all([import('./translate/stdio-exposure.ts'), import('./translate/stdio-check.ts')]);
  await checkStdioServer(command.command);
  const exposure = await exposeStdioServer({ ...command, log });
  const served = [command.streamableHttp && `${exposure.url}/mcp (Streamable HTTP)`, command.sse && `${exposure.url}/sse (legacy SSE)`].filter(Boolean);
  log(`serving "${command.command}" at ${served.join(' and ')}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(command.host)) log(`${command.host} is not loopback: anyone who can reach it can use the server, without authentication`);
  stopOnSignal(() => exposure.close());
}

let command: Command;
try {
  command = parseCommandLine(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  const named = ['wrapper', 'translate'].find((name) => name === process.argv[2]);
  log(`${error.message}\nRun "arbor-mcp ${named ? `${named} ` : ''}--help" for usage.`);
  process.exit(2);
}

if (command.kind === 'help') {
  process.stdout.write(command.text);
} else {
  (command.kind === 'wrapper' ? runWrapper(command) : runTranslate(command)).catch((error: unknown) => {
    log(`could not start: ${messageOf(error)}`);
    process.exit(1);
  });
}
