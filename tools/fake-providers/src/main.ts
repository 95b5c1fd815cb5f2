// `node tools/fake-providers/src/main.ts`: the fake upstream providers on their own.
// FAKE_PROVIDERS_PORT (default 8099, 0 for a free one), FAKE_PROVIDERS_HOST (default 127.0.0.1).
import { startFakeProviders } from './fake-providers.ts';

const env = process.env;

startFakeProviders({
  port: env['FAKE_PROVIDERS_PORT'] ? Number(env['FAKE_PROVIDERS_PORT']) : 8099,
  host: env['FAKE_PROVIDERS_HOST'] || undefined,
}).then(
  (fake) => {
    const stop = (): void => {
      fake.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdout.write(`fake-providers ready at ${fake.url}\n`);
  },
  (error: unknown) => {
    console.error('fake-providers: could not start:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
