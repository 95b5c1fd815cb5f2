// `node tools/dev-idp/src/main.ts`: the dev identity provider on its own.
// DEV_IDP_PORT (default 8090, 0 for a free one), DEV_IDP_HOST (default 127.0.0.1),
// DEV_IDP_ISSUER, DEV_IDP_REALM_FILE (default deploy/keycloak/realm-export.json), DEV_IDP_KEY_FILE
// (where the signing key is kept across restarts; default: a new key at every start).
import { startDevIdp } from './dev-idp.ts';

const env = process.env;

const started = startDevIdp({
  port: env['DEV_IDP_PORT'] ? Number(env['DEV_IDP_PORT']) : undefined,
  host: env['DEV_IDP_HOST'] || undefined,
  issuer: env['DEV_IDP_ISSUER'] || undefined,
  realmFile: env['DEV_IDP_REALM_FILE'] || undefined,
  signingKeyFile: env['DEV_IDP_KEY_FILE'] || undefined,
});

const exitWith = (message: string) => (error: unknown) => {
  console.error(`dev-idp: ${message}:`, error instanceof Error ? error.message : error);
  process.exit(1);
};

const stop = (): void => {
  started.then((idp) => idp.close()).then(() => process.exit(0), exitWith('stopping failed'));
};
// Registered before the ready line so that a caller may signal as soon as it reads it.
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

started.then((idp) => process.stdout.write(`dev-idp ready at ${idp.issuer}\n`), exitWith('could not start'));
