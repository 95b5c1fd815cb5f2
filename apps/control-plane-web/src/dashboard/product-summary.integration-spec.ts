import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@arbor/testing';
import { fetchProductSummary, type CardOutcome } from './product-summary';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Asks a product that answers with `handler` (on a port of its own) and closes it. */
async function askProductAnswering(handler: Handler, timeoutMs = 500): Promise<CardOutcome> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fetchProductSummary(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'the-token', timeoutMs);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const json =
  (status: number, body: string): Handler =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);

describe("asking one product for the person's dashboard summary", () => {
  it('asks /api/v1/dashboard/summary with the person token and gives the summary', async () => {
    let asked = '';
    const outcome = await askProductAnswering((req, res) => {
      asked = `${req.method} ${req.url} ${req.headers.authorization}`;
      json(200, JSON.stringify({ product: 'shop', title: 'Shop', status: 'ok', tiles: [{ label: 'Orders', value: 3, unit: null }] }))(req, res);
    });
    expect(asked).toBe('GET /api/v1/dashboard/summary Bearer the-token');
    expect(outcome).toEqual({ state: 'ok', summary: { product: 'shop', title: 'Shop', status: 'ok', tiles: [{ label: 'Orders', value: 3, unit: null }] } });
  });

  it('turns a slow, refusing, old, failing or confused product into a card state, never an error', async () => {
    const slow: Handler = (_req, res) => void setTimeout(() => res.writeHead(200).end('{}'), 2000);
    const outcomes = {
      slow: await askProductAnswering(slow, 300),
      refuses: await askProductAnswering(json(403, '{}')),
      old: await askProductAnswering(json(404, '{}')),
      fails: await askProductAnswering(json(502, '{}')),
      html: await askProductAnswering((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>')),
      shape: await askProductAnswering(json(200, '{"hello":1}')),
      down: await fetchProductSummary(`http://127.0.0.1:${await freePort()}`, 'the-token', 500),
    };
    expect(Object.fromEntries(Object.entries(outcomes).map(([name, outcome]) => [name, outcome.state]))).toEqual({
      slow: 'timeout',
      refuses: 'refused',
      old: 'no-summary',
      fails: 'broken',
      html: 'broken',
      shape: 'broken',
      down: 'down',
    });
  });
});
