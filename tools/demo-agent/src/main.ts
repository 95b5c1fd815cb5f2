// `node tools/demo-agent/src/main.ts`: the demo A2A agent on its own.
// DEMO_AGENT_PORT (default 3010, 0 for a free one), DEMO_AGENT_HOST (default 127.0.0.1),
// DEMO_AGENT_TOKEN (when set, the bearer token every request must carry).
import { startDemoAgent } from './demo-agent.ts';

const env = process.env;

startDemoAgent({
  port: env['DEMO_AGENT_PORT'] ? Number(env['DEMO_AGENT_PORT']) : 3010,
  ...(env['DEMO_AGENT_HOST'] ? { host: env['DEMO_AGENT_HOST'] } : {}),
  ...(env['DEMO_AGENT_TOKEN'] ? { token: env['DEMO_AGENT_TOKEN'] } : {}),
}).then(
  (agent) => {
    const stop = (): void => {
      agent.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdout.write(`demo-agent ready at ${agent.url}\n`);
  },
  (error: unknown) => {
    console.error('demo-agent: could not start:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
