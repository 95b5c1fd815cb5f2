import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedSync {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  slugs: string[];
  receivedAt: number;
}

/** How the product answers a request: a status now, a status later, or never. */
export type Answer = number | { status: number; afterMs: number } | 'stall';

/**
 * A product's sync endpoint on real HTTP: records every request, answers as `answer` says, and
 * notes any request that arrives while another one carrying one of its slugs is still open.
 */
export class FakeProduct {
  readonly requests: ReceivedSync[] = [];
  /** Requests that overlapped an open request for the same slug (should never happen). */
  readonly overlaps: string[] = [];
  answer: (request: ReceivedSync, index: number) => Answer = () => 204;
  private readonly open = new Map<string, number>();
  private readonly stalled = new Set<ServerResponse>();
  private server: Server;
  private port = 0;

  private constructor() {
    this.server = this.createServer();
  }

  static async start(answer?: FakeProduct['answer']): Promise<FakeProduct> {
    const product = new FakeProduct();
    if (answer) product.answer = answer;
    await product.listen();
    return product;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Every slug received, with repeats. */
  get slugs(): string[] {
    return this.requests.flatMap((request) => request.slugs);
  }

  /** Stops listening and drops every connection: from now on connections are refused. */
  async stop(): Promise<void> {
    for (const response of this.stalled) response.destroy();
    this.stalled.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restart(): Promise<void> {
    this.server = this.createServer();
    await this.listen();
  }

  async waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'the expected requests'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.requests.map((r) => r.slugs))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private createServer(): Server {
    return createServer((request, response) => void this.handle(request, response));
  }

  private async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    let slugs: string[] = [];
    try {
      slugs = (JSON.parse(body) as { slugs: string[] }).slugs;
    } catch {
      // recorded as received; the test looks at the body
    }
    const received: ReceivedSync = { path: request.url ?? '', headers: request.headers, body, slugs, receivedAt: Date.now() };
    const index = this.requests.push(received) - 1;
    for (const slug of slugs) {
      if (this.open.get(slug)) this.overlaps.push(slug);
      this.open.set(slug, (this.open.get(slug) ?? 0) + 1);
    }
    const finish = () => {
      for (const slug of slugs) this.open.set(slug, (this.open.get(slug) ?? 1) - 1);
    };
    response.once('close', finish);
    const answer = this.answer(received, index);
    if (answer === 'stall') {
      this.stalled.add(response);
      return;
    }
    const { status, afterMs } = typeof answer === 'number' ? { status: answer, afterMs: 0 } : answer;
    if (afterMs > 0) await new Promise((resolve) => setTimeout(resolve, afterMs));
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(status >= 200 && status < 300 ? '' : JSON.stringify({ error: { code: 'fake', message: `answered ${status}` } }));
  }
}
