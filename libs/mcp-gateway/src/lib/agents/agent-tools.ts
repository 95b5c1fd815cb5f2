import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type AgentCard, type Message, type Part, Role, type SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import { ErrorCode, McpError, type ClientRequest, type Result, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { CredentialsUnavailable } from '../credentials/credentials.exception';
import { refusedCall } from '../upstreams/refused-call';
import type { ForwardOptions, UpstreamOffer } from '../upstreams/upstream-offer';
import { AgentCalls, AgentUnavailable } from './agent-call';
import { AgentDirectory } from './agent-directory';

/** How long a tool call waits for an agent's task to finish, at most. */
const MAX_TOOL_CALL_MS = 10 * 60_000;
const EMPTY_OFFER: UpstreamOffer = { capabilities: {}, tools: [], resources: [], resourceTemplates: [], prompts: [] };
/** Where a tool result carries the A2A ids a client continues from. */
export const A2A_RESULT_META = 'arbor/a2a';

const TERMINAL_FAILURES = new Set([TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);
/** A task paused until the client answers (A2A's interrupted states): a follow-up message with its task id continues it. */
const WAITING = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/**
 * Agents as tools of the one catalogue: the pool offers each agent a virtual server includes
 * (`{agent: <name>}`) as one tool, named as the agent, described from its card and skills, taking
 * `{message, context_id?, task_id?}`; a call sends the message with the SDK's client and answers
 * the agent's reply as text (a task's final artifacts; progress notifications from its status
 * updates while it works, when the caller asked for progress). A task that waits for input is
 * answered with the agent's question and its ids, which the client's next call passes to continue it.
 */
@Injectable()
export class AgentTools {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly calls: AgentCalls,
  ) {}

  has(name: string): boolean {
    return this.directory.has(name);
  }

  /** Called after an agent's card changed; returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.directory.onChange(listener);
  }

  async offer(name: string): Promise<UpstreamOffer> {
    const card = await this.directory.card(name);
    const definition = this.directory.definition(name);
    return card && definition ? offerOf(name, definition.description, card) : EMPTY_OFFER;
  }

  /** The offer from the card known now (none before the first read). */
  knownOffer(name: string): UpstreamOffer {
    return this.offerIfRead(name) ?? EMPTY_OFFER;
  }

  async call(name: string, request: ClientRequest, options: ForwardOptions): Promise<Result> {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Agent "${name}" answers only tools/call`);
    const args = (request.params.arguments ?? {}) as { message?: unknown; context_id?: unknown; task_id?: unknown };
    if (typeof args.message !== 'string' || args.message === '') throw new McpError(ErrorCode.InvalidParams, 'The argument "message" (a non-empty string) is required');
    for (const id of ['context_id', 'task_id'] as const) {
      if (args[id] !== undefined && typeof args[id] !== 'string') throw new McpError(ErrorCode.InvalidParams, `The argument "${id}" must be a string`);
    }
    const params = sendRequest(args.message, args.context_id as string | undefined, args.task_id as string | undefined);
    const signal = AbortSignal.any([...(options.signal ? [options.signal] : []), AbortSignal.timeout(MAX_TOOL_CALL_MS)]);
    // The caller as the grant says (principal, a person's token): per-caller auth gives the agent that person's credentials.
    const caller = options.caller ?? { kind: 'machine' as const, principal: 'unknown' };
    try {
      const onprogress = options.onprogress;
      if (!onprogress) return answerOf(await this.calls.call(name, 'SendMessage', caller, (transport, call) => transport.sendMessage(params, call), signal));
      // Progress wanted: the stream, each status update a progress notification, the final state the answer.
      let latest: Message | Task | undefined;
      let step = 0;
      for await (const event of this.calls.stream(name, 'SendStreamingMessage', caller, (transport, call) => transport.sendMessageStream(params, call), signal)) {
        const payload = event.payload;
        if (!payload) continue;
        if (payload.$case === 'message') latest = payload.value;
        else if (payload.$case === 'task') latest = payload.value;
        else if (payload.$case === 'statusUpdate' && latest && 'status' in latest) {
          latest = { ...latest, status: payload.value.status };
          const words = textOf(payload.value.status?.message?.parts);
          onprogress({ progress: ++step, ...(words ? { message: words } : {}) });
        } else if (payload.$case === 'artifactUpdate' && latest && 'artifacts' in latest && payload.value.artifact) {
          const artifact = payload.value.artifact;
          const known = latest.artifacts.find((entry) => entry.artifactId === artifact.artifactId);
          const artifacts = known
            ? latest.artifacts.map((entry) => (entry === known ? { ...entry, parts: payload.value.append ? [...entry.parts, ...artifact.parts] : artifact.parts } : entry))
            : [...latest.artifacts, artifact];
          latest = { ...latest, artifacts };
        }
      }
      if (!latest) throw new AgentUnavailable(name, 'its stream ended without an answer');
      return answerOf(latest);
    } catch (error) {
      if (error instanceof AgentUnavailable) throw new McpError(ErrorCode.InternalError, error.message, { agent: name });
      // No credentials for this caller at the agent: a tool error saying why (a connect link for OAuth), as for upstreams.
      if (error instanceof CredentialsUnavailable) return refusedCall(request, error, options.elicitsUrls === true);
      // The agent's own A2A error is the tool's error: the model reads it.
      if (error instanceof A2AError) return { content: [{ type: 'text', text: `Agent "${name}" answered an error: ${error.message}` }], isError: true };
      throw error;
    }
  }

  private offerIfRead(name: string): UpstreamOffer | undefined {
    const definition = this.directory.definition(name);
    const card = definition && this.directory.knownCard(name);
    return card && definition ? offerOf(name, definition.description, card) : undefined;
  }
}

function offerOf(name: string, description: string | undefined, card: AgentCard): UpstreamOffer {
  return { capabilities: { tools: {} }, tools: [toolOf(name, description, card)], resources: [], resourceTemplates: [], prompts: [] };
}

/** The agent as a tool: its name, its card's words and skills, a message in. */
export function toolOf(name: string, description: string | undefined, card: AgentCard): Tool {
  const skills = card.skills.map((skill) => `- ${skill.name}: ${skill.description}${skill.examples.length > 0 ? ` (e.g. "${skill.examples[0]}")` : ''}`);
  const words = [description, card.description, skills.length > 0 ? `Skills:\n${skills.join('\n')}` : undefined].filter((part) => part !== undefined && part !== '');
  return {
    name,
    title: card.name,
    description: `Ask the A2A agent "${card.name}". ${words.join('\n\n')}`,
    inputSchema: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'What to ask or tell the agent, in plain words.' },
        context_id: { type: 'string', description: 'Continues an earlier conversation with the agent: the context_id an earlier answer named.' },
        task_id: { type: 'string', description: 'Answers a task that waits for input: the task_id the answer asking for it named (with its context_id).' },
      },
      required: ['message'],
    },
    annotations: { title: card.name, openWorldHint: true },
  };
}

function sendRequest(text: string, contextId: string | undefined, taskId: string | undefined): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: contextId ?? '',
    // A2A: a message with the task's id continues that task (one waiting for input); the agent refuses a finished one.
    taskId: taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  // Blocking: the answer is the task in its final (or interrupted) state.
  return { tenant: '', message, configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately: false }, metadata: undefined };
}

/** A reply as tool content: a message's text, or a task's artifacts (its status message when it has none). */
function answerOf(answer: Message | Task): Result {
  if (!('status' in answer)) {
    return { content: [{ type: 'text', text: textOf(answer.parts) }], _meta: { [A2A_RESULT_META]: { context_id: answer.contextId } } };
  }
  const state = answer.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  const artifacts = answer.artifacts.map((artifact) => textOf(artifact.parts)).filter((text) => text !== '');
  const status = textOf(answer.status?.message?.parts);
  const text = artifacts.length > 0 ? artifacts.join('\n\n') : status || `The agent's task is ${stateName(state)}.`;
  // What the model reads: the agent's question and how to answer it (MCP clients seldom show _meta).
  const waiting = WAITING.has(state)
    ? [
        {
          type: 'text',
          text: `The agent waits for ${state === TaskState.TASK_STATE_AUTH_REQUIRED ? 'authorisation' : 'an answer'}: to give it, call this tool again with the answer as message, task_id "${answer.id}" and context_id "${answer.contextId}".`,
        },
      ]
    : [];
  return {
    content: [{ type: 'text', text }, ...waiting],
    ...(TERMINAL_FAILURES.has(state) ? { isError: true } : {}),
    _meta: { [A2A_RESULT_META]: { context_id: answer.contextId, task_id: answer.id, state: stateName(state) } },
  };
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : part.content?.$case === 'data' ? JSON.stringify(part.content.value) : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function stateName(state: TaskState): string {
  return TaskState[state]?.replace(/^TASK_STATE_/, '').toLowerCase() ?? 'unknown';
}
