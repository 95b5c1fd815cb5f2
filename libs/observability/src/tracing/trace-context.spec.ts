import { Controller, Get, INestApplication, Logger } from '@nestjs/common';
import request from 'supertest';
import { startObservedApp } from '../testing/observed-app';
import { currentTraceContext, currentTraceparent, runInTrace, runInTraceContext } from './trace-context';
import { parseTraceparent } from './traceparent';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

@Controller()
class OutgoingController {
  @Get('outgoing')
  async outgoing(): Promise<{ traceparent: string; afterAwait: string }> {
    const traceparent = currentTraceparent();
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { traceparent, afterAwait: currentTraceparent() };
  }
}

describe('currentTraceparent', () => {
  it('continues the current trace with a new child span id', () => {
    runInTraceContext({ traceId: TRACE_ID, spanId: PARENT_ID, traceFlags: '01' }, () => {
      const first = parseTraceparent(currentTraceparent());
      const second = parseTraceparent(currentTraceparent());
      expect(first).toMatchObject({ traceId: TRACE_ID, traceFlags: '01' });
      expect(first?.parentId).not.toBe(PARENT_ID);
      expect(first?.parentId).not.toBe(second?.parentId);
    });
  });

  it('starts a new trace outside any', () => {
    expect(currentTraceContext()).toBeUndefined();
    expect(parseTraceparent(currentTraceparent())).toBeDefined();
    expect(parseTraceparent(currentTraceparent())?.traceId).not.toBe(parseTraceparent(currentTraceparent())?.traceId);
  });

  describe('inside a request', () => {
    let app: INestApplication;
    beforeAll(async () => {
      ({ app } = await startObservedApp({ controllers: [OutgoingController] }));
    });
    afterAll(() => app.close());

    it('carries the incoming trace id to outgoing calls, across awaits', async () => {
      const response = await request(app.getHttpServer()).get('/outgoing').set('traceparent', `00-${TRACE_ID}-${PARENT_ID}-01`).expect(200);
      expect(parseTraceparent(response.body.traceparent)?.traceId).toBe(TRACE_ID);
      expect(parseTraceparent(response.body.afterAwait)?.traceId).toBe(TRACE_ID);
    });

    it('keeps concurrent requests apart', async () => {
      const traceIds = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
      const responses = await Promise.all(traceIds.map((traceId) => request(app.getHttpServer()).get('/outgoing').set('traceparent', `00-${traceId}-${PARENT_ID}-01`)));
      expect(responses.map((response) => parseTraceparent(response.body.afterAwait)?.traceId)).toEqual(traceIds);
    });
  });
});

describe('runInTrace', () => {
  it('continues a stored traceparent for background work, and its log lines carry it', async () => {
    const { app, log } = await startObservedApp({ logFilter: 'info' });
    try {
      await runInTrace(
        'outbox.deliver',
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          new Logger('outbox').log('delivering');
          expect(parseTraceparent(currentTraceparent())?.traceId).toBe(TRACE_ID);
        },
        { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      );
      expect(log.lines().find((line) => line['msg'] === 'delivering')).toMatchObject({ trace_id: TRACE_ID });
      expect(currentTraceContext()).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('starts a new trace without one', () => {
    const traceId = runInTrace('job', () => currentTraceContext()?.traceId);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
