import { ContractHttpError } from '../errors/contract-http-error';
import { TokenVerifier } from './token-verifier';

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'k1' }));

// A verifier whose JWKS is never reached: every token below is refused before a key is looked up.
const verifier = new TokenVerifier({ issuer: 'http://127.0.0.1:9/realms/arbor', audience: 'ai-gateway', jwksUri: 'http://127.0.0.1:9/jwks' });

async function refusal(authorization: string): Promise<ContractHttpError> {
  const error = await verifier.authenticate({ headers: { authorization } }).catch((caught: unknown) => caught);
  if (!(error instanceof ContractHttpError)) throw new Error(`expected a ContractHttpError, got ${String(error)}`);
  return error;
}

describe('TokenVerifier with malformed bearer tokens', () => {
  it.each([
    ['a payload that is not JSON', `${HEADER}.${b64('not json{')}.AAAA`],
    ['a header that is not JSON', `${b64('{"alg":')}.${b64('{}')}.AAAA`],
    ['a payload that is a JSON number', `${HEADER}.${b64('123')}.AAAA`],
    ['a header that is not base64url of anything', `%%%.${b64('{}')}.AAAA`],
    ['two segments', `${HEADER}.${b64('{}')}`],
    ['one segment of garbage', 'eyJhbGciOiJSUzI1NiJ9'],
    ['the issue report’s token', 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb257.AAAA'],
    ['characters a bearer token cannot hold', 'abc"def<script>'],
  ])('%s is a 401 invalid_token with WWW-Authenticate error="invalid_token"', async (_name, token) => {
    const error = await refusal(`Bearer ${token}`);
    expect(error.getStatus()).toBe(401);
    expect(error.code).toBe('invalid_token');
    expect(error.headers['WWW-Authenticate']).toMatch(/^Bearer realm="ai-gateway", error="invalid_token"/);
  });

  it('no Authorization header is a 401 missing_token without an error code (RFC 6750 §3.1)', async () => {
    const error = (await verifier.authenticate({ headers: {} }).catch((caught: unknown) => caught)) as ContractHttpError;
    expect(error.getStatus()).toBe(401);
    expect(error.code).toBe('missing_token');
    expect(error.headers['WWW-Authenticate']).toBe('Bearer realm="ai-gateway"');
  });
});
