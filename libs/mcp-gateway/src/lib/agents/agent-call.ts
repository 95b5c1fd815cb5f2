import { Logger } from '@nestjs/common';
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import type { Transport } from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';
import { AgentDirectory } from './agent-directory';
import type { CredentialCaller } from '../credentials/credential-caller';
import { CredentialsUnavailable } from '../credentials/credentials.exception';
import { describe } from './agent-card-reader';
import { AgentMetrics, type AgentCallOutcome } from './agent-metrics';

/** The A2A methods, as metrics and audit lines name them (the v1.0 names, whichever binding or version the caller used). */
export type AgentMethod =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** The agent could not be reached; the message names the agent, never its address or credentials. */
export class AgentUnavailable extends Error {
  constructor(agent: string, reason: string) {
    super(`Agent "${agent}" is unavailable: ${reason}`);
    this.name = 'AgentUnavailable';
  }
}

/**
 * Every call to an agent (proxied, or as a tool) goes through here once: the agent's SDK
 * transport, the headers its `auth` gives for this caller, the metrics, the agent's health and
 * one audit line (who, which agent, which method, how it ended; never a message's content).
 */
export class AgentCalls {
  private readonly audit = new Logger('mcp-gateway-audit');

  constructor(
    private readonly directory: AgentDirectory,
    private readonly metrics: AgentMetrics,
  ) {}

  /** One request, one answer. */
  async call<T>(agent: string, method: AgentMethod, caller: CredentialCaller, send: (transport: Transport, options: CallOptions) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const started = performance.now();
    const { transport, options } = await this.prepare(agent, method, caller, started, signal);
    try {
      const answer = await send(transport, options);
      this.finish(agent, method, caller, 'ok', started);
      return answer;
    } catch (error) {
      throw this.failed(agent, method, caller, error, started, signal);
    }
  }

  /** A stream, passed on event by event as it comes; its time open is measured when it ends. */
  async *stream<T>(
    agent: string,
    method: AgentMethod,
    caller: CredentialCaller,
    open: (transport: Transport, options: CallOptions) => AsyncGenerator<T, void, undefined>,
    signal?: AbortSignal,
  ): AsyncGenerator<T, void, undefined> {
    const started = performance.now();
    const { transport, options } = await this.prepare(agent, method, caller, started, signal);
    let completed = false;
    try {
      for await (const event of open(transport, options)) {
        this.directory.seen(agent);
        yield event;
      }
      completed = true;
      this.finish(agent, method, caller, 'ok', started, true);
    } catch (error) {
      completed = true;
      throw this.failed(agent, method, caller, error, started, signal, true);
    } finally {
      // The caller went away mid-stream.
      if (!completed) this.finish(agent, method, caller, 'cancelled', started, true);
    }
  }

  /** A call the gateway refused before it went out (a push URL the address guard refuses, no credentials for the caller). */
  refused(agent: string, method: AgentMethod, caller: CredentialCaller, reason: string): void {
    this.metrics.record(agent, method, 'refused', 0);
    this.audit.log(`agent call refused agent=${agent} method=${method} principal=${caller.principal} reason="${reason}"`);
  }

  private async prepare(
    agent: string,
    method: AgentMethod,
    caller: CredentialCaller,
    started: number,
    signal?: AbortSignal,
  ): Promise<{ transport: Transport; options: CallOptions }> {
    const client = await this.directory.client(agent);
    if (!client) {
      const error = new AgentUnavailable(agent, 'its card has not been read yet');
      this.finish(agent, method, caller, 'unavailable', started);
      throw error;
    }
    let headers: Readonly<Record<string, string>>;
    try {
      headers = await this.directory.headersFor(agent, caller);
    } catch (error) {
      // No credentials for this caller there: the call is not made (never without them, nor with anyone else's).
      if (error instanceof CredentialsUnavailable) this.refused(agent, method, caller, error.code);
      throw error;
    }
    // The transport is used as the SDK's Client uses it, which names the version it speaks on every call.
    return { transport: client.transport, options: { serviceParameters: { ...headers, [A2A_VERSION_HEADER]: client.protocolVersion }, ...(signal ? { signal } : {}) } };
  }

  private failed(agent: string, method: AgentMethod, caller: CredentialCaller, error: unknown, started: number, signal?: AbortSignal, stream = false): unknown {
    if (signal?.aborted) {
      this.finish(agent, method, caller, 'cancelled', started, stream);
      return error;
    }
    // An A2A error is the agent's answer (task not found, not cancelable…): passed on as it is.
    if (error instanceof A2AError && !isTransportFailure(error)) {
      this.directory.seen(agent);
      this.finish(agent, method, caller, 'error', started, stream);
      return error;
    }
    const reason = describe(error);
    this.directory.down(agent, reason);
    this.finish(agent, method, caller, 'unavailable', started, stream);
    return new AgentUnavailable(agent, reason);
  }

  private finish(agent: string, method: AgentMethod, caller: CredentialCaller, outcome: AgentCallOutcome, started: number, stream = false): void {
    const seconds = (performance.now() - started) / 1000;
    if (outcome === 'ok') this.directory.seen(agent);
    this.metrics.record(agent, method, outcome, seconds, stream ? seconds : undefined);
    this.audit.log(`agent call agent=${agent} method=${method} principal=${caller.principal} outcome=${outcome} duration_ms=${Math.round(seconds * 1000)}`);
  }
}

export interface CallOptions {
  serviceParameters: Record<string, string>;
  signal?: AbortSignal;
}

/** The SDK turns an HTTP failure without an A2A body (a 5xx, a proxy's page) into an error too: that is the agent not answering. */
function isTransportFailure(error: A2AError): boolean {
  const status = (error as { statusCode?: number }).statusCode;
  return status !== undefined && (status >= 500 || status === 401 || status === 403);
}
