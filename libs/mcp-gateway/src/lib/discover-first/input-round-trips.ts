import { randomBytes } from 'node:crypto';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { ClientCapabilities, ClientRequest, Request, Result } from '@modelcontextprotocol/sdk/types.js';
import { SessionOwners } from '../transports/session-owners';
import { UpstreamPool } from '../upstreams/upstream-pool';
import { UpstreamSessions } from '../upstreams/upstream-sessions';
import type { CredentialCaller } from '../credentials/credential-caller';

/** What a call on its way produced next: a question for the client, or its end. */
type Step = { kind: 'input'; key: string; request: Request } | { kind: 'done'; result: Result } | { kind: 'failed'; error: unknown };

/** How long a call waits for the client's retry with the answer before it is given up. */
const ANSWER_WAIT_MS = 5 * 60_000;
const MAX_WAITING = 1000;

/**
 * One call to an upstream of the older versions made for a client of the 2026-07-28 revision, on
 * an upstream session of its own declaring the client's capabilities: when the upstream asks the
 * client something (sampling, elicitation, roots), the question goes back to the client as an
 * input request and the call waits for the client's retry carrying the answer.
 */
class RoundTrip {
  private steps: Step[] = [];
  private wake?: () => void;
  private answering?: { key: string; resolve(result: Result): void; reject(error: unknown): void };
  private asked = 0;
  timer?: NodeJS.Timeout;

  constructor(
    readonly principal: string,
    private readonly sessions: UpstreamSessions,
  ) {}

  /** Feeds the round trip the sessions' upstream requests. */
  ask(request: Request): Promise<Result> {
    return new Promise((resolve, reject) => {
      const key = `input-${++this.asked}`;
      this.answering = { key, resolve, reject };
      this.push({ kind: 'input', key, request });
    });
  }

  start(upstream: string, request: ClientRequest): void {
    this.sessions.forward(upstream, request).then(
      (result) => this.push({ kind: 'done', result }),
      (error: unknown) => this.push({ kind: 'failed', error }),
    );
  }

  /** The client's answer to the question it was asked; false when it answers another. */
  answer(responses: Record<string, unknown>): boolean {
    const answering = this.answering;
    if (!answering || !(answering.key in responses)) return false;
    this.answering = undefined;
    answering.resolve(responses[answering.key] as Result);
    return true;
  }

  async next(signal: AbortSignal): Promise<Step> {
    while (this.steps.length === 0) {
      if (signal.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return this.steps.shift() as Step;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.answering?.reject(new Error('The client did not answer in time'));
    await this.sessions.close();
  }

  private push(step: Step): void {
    this.steps.push(step);
    this.wake?.();
    this.wake = undefined;
  }
}

/**
 * Calls of 2026-07-28 clients that wait for the client's answer to an upstream's question,
 * by the opaque `requestState` the client echoes in its retry (random, bound to the principal
 * that made the call, kept on this replica for ANSWER_WAIT_MS; with MCPGW_REDIS_URL recorded
 * in SessionOwners, so a retry reaching another replica is passed here).
 */
@Injectable()
export class InputRoundTrips implements OnModuleDestroy {
  private readonly waiting = new Map<string, RoundTrip>();

  constructor(
    private readonly pool: UpstreamPool,
    private readonly owners: SessionOwners,
  ) {}

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.waiting.values()].map((trip) => trip.close()));
    this.waiting.clear();
  }

  /** Starts `request` on a session of its own that asks the client what the upstream asks. */
  start(principal: string, capabilities: ClientCapabilities, upstream: string, request: ClientRequest, caller?: CredentialCaller): RoundTrip {
    // eslint-disable-next-line prefer-const -- the peer needs the trip, the trip the sessions
    let trip: RoundTrip;
    const sessions = new UpstreamSessions(
      this.pool,
      {
        capabilities: () => capabilities,
        request: (_upstream, question) => trip.ask(question),
        notify: async () => undefined,
      },
      caller && (() => caller),
    );
    trip = new RoundTrip(principal, sessions);
    trip.start(upstream, request);
    return trip;
  }

  /** The call a retry continues, if this replica holds it for this principal. */
  resume(principal: string, state: string, responses: Record<string, unknown>): RoundTrip | undefined {
    const trip = this.waiting.get(state);
    if (!trip || trip.principal !== principal || !trip.answer(responses)) return undefined;
    this.waiting.delete(state);
    this.owners.releasePending(state);
    clearTimeout(trip.timer);
    return trip;
  }

  /** Whether this replica holds the call a retry continues. */
  holds(state: string): boolean {
    return this.waiting.has(state);
  }

  /** Keeps `trip` for the client's retry; the state it echoes back. */
  park(trip: RoundTrip): string {
    if (this.waiting.size >= MAX_WAITING) throw new Error('Too many calls are waiting for answers');
    const state = randomBytes(24).toString('base64url');
    trip.timer = setTimeout(() => {
      this.waiting.delete(state);
      this.owners.releasePending(state);
      void trip.close();
    }, ANSWER_WAIT_MS);
    trip.timer.unref();
    this.waiting.set(state, trip);
    // Another replica that gets the retry passes it here.
    this.owners.claimPending(state, ANSWER_WAIT_MS);
    return state;
  }

  /** The next thing the call did: the question for the client (parked), its result, or its error. */
  async step(trip: RoundTrip, signal: AbortSignal): Promise<Result> {
    const step = await trip.next(signal).catch(async (error: unknown) => {
      await trip.close();
      throw error;
    });
    if (step.kind === 'input') {
      return { resultType: 'input_required', inputRequests: { [step.key]: { method: step.request.method, params: step.request.params ?? {} } }, requestState: this.park(trip) };
    }
    await trip.close();
    if (step.kind === 'failed') throw step.error;
    return step.result;
  }
}
