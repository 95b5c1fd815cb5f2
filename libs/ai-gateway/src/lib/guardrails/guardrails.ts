import { Inject, Injectable, Logger } from '@nestjs/common';
import { CounterSeries, MetricsRegistry, SeriesCounter } from '@arbor/observability';
import { excerptList, excerpt } from '@arbor/platform';
import { ProviderError } from '@arbor/provider-adapters';
import { BudgetLimits } from '../budgets/budget-limits';
import { CallStage, CallStages, type StageCall, type StagePass } from '../calls/call-stage';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { badRequest } from '../gateway-errors';
import type { AnswerText } from '../endpoints/answer-text';
import type { EndpointCodec } from '../endpoints/endpoint-codec';
import { AnswerStreamGuard } from './answer-stream-guard';
import { StreamedTextChecks } from './streamed-text-checks';
import { type ContentBlocked, ContentFilter, GuardrailApi, GuardrailApiError, type GuardrailDefinition, type GuardrailMode, type ModerationSettings } from '@arbor/guardrails';
import { UpstreamClient } from '@arbor/platform';
import type { GatewayCaller } from '../keys/key-verifier';
import type { GatewayDeployment } from '../config/gateway-config';
import { DeploymentRouter } from '../deployment-router';
import { moderationRefusal } from './moderation-check';

// First of the stages: what the others see, keep and cache is the request as it may go on.
const GUARDRAILS_ORDER = 10;
const FIELD = 'guardrails';
// A form names a list as the SDKs encode one: a `guardrails[]` field for each name.
const FORM_FIELD = `${FIELD}[]`;
const NONE: readonly string[] = [];

interface RunningGuardrail {
  readonly definition: GuardrailDefinition;
  readonly modes: ReadonlySet<GuardrailMode>;
  /** A content filter's rules, compiled; or the moderation it asks for. */
  readonly filter?: ContentFilter;
  readonly moderation?: ModerationSettings;
  /** A generic guardrail API's client. */
  readonly api?: GuardrailApi;
  /** Calls it refused, and calls whose text it masked. */
  readonly blocked: CounterSeries<'guardrail' | 'action'>;
  readonly masked: CounterSeries<'guardrail' | 'action'>;
}

/** What the guardrails make of a pass-through's model call: the request to send, and what to do with its JSON answer. */
export interface GuardedPassThrough {
  readonly body: Record<string, unknown>;
  readonly rewrite?: StagePass['rewrite'];
  /** A streamed answer's whole events, as the pipeline's stages get them (`ended` before its last ones go). */
  readonly events?: StagePass['events'];
  readonly ended?: StagePass['ended'];
}

/** What the guardrails need to know of a family: where its text is. */
export type TextFamily = Pick<EndpointCodec, 'description' | 'requestFormat' | 'requestText' | 'answerText'>;

/** One answer's streamed events under the guardrails (a stage's `events` and `ended`). */
export type AnswerEvents = Required<Pick<StagePass, 'events'>> & Pick<StagePass, 'ended'>;

/** One event checked: the event to send on (masked), or a refusal thrown. */
export type EventGuard = (event: Record<string, unknown>) => Promise<Record<string, unknown>>;

type FilteringGuardrail = RunningGuardrail & { readonly filter: ContentFilter };
type ModeratingGuardrail = RunningGuardrail & { readonly moderation: ModerationSettings };
type AskingGuardrail = RunningGuardrail & { readonly api: GuardrailApi };
const isAsking = (guardrail: RunningGuardrail): guardrail is AskingGuardrail => guardrail.api !== undefined;
const isFiltering = (guardrail: RunningGuardrail): guardrail is FilteringGuardrail => guardrail.filter !== undefined;
const isModerating = (guardrail: RunningGuardrail): guardrail is ModeratingGuardrail => guardrail.moderation !== undefined;
const checksRequest = ({ modes }: RunningGuardrail) => modes.has('pre_call') || modes.has('during_call');
const checksAnswer = ({ modes }: RunningGuardrail) => modes.has('post_call') || modes.has('during_call');

/**
 * The config's guardrails (LiteLLM's `guardrails:`), as a stage of the call pipeline: a guardrail
 * runs on every call when `default_on`, on every call of a key that carries it (`guardrails` of the
 * key API), else on the calls that name it (`"guardrails": ["name"]` in the body, or in its
 * `metadata`). It finds text where the family's codec says it is, by its modes:
 * - `pre_call`: the request, before the call goes out — MASK rules replace what they match before
 *   any upstream, bridge or other stage sees it;
 * - `post_call`: the answer — a JSON answer whole, a streamed one as it passes (each text held
 *   until 128 more characters have come, so that a match split over chunks is found whole);
 * - `during_call`: LiteLLM runs it on the request alongside the call, where it can refuse but not
 *   change it: here the request's BLOCK rules are checked before the call goes out, and the answer
 *   as for post_call, so that neither reading lets a call pass unchecked.
 * An `openai_moderation` guardrail asks a moderation alias of model_list about the same texts (all
 * of a request or of a JSON answer at once) and refuses what it flags; a generic guardrail API is
 * asked likewise. On a streamed answer both see the text so far as it passes, never holding it
 * (StreamedTextChecks: each 800 characters, and whole before the stream's last events go).
 * A BLOCK rule that matches refuses with 400 `guardrail_violation` (naming the guardrail and the
 * rule, never the text; a stream ends with the family's error event). The `guardrails` field itself
 * never reaches an upstream. Off (never opened) when the config names none.
 */
@Injectable()
export class Guardrails implements CallStage {
  readonly name = 'guardrails';
  readonly order = GUARDRAILS_ORDER;
  readonly on: boolean;
  private readonly running: readonly RunningGuardrail[];
  private readonly names: ReadonlySet<string>;
  private readonly anyDefaultOn: boolean;
  private readonly logger = new Logger('Guardrails');
  /** The guardrail APIs' connections, made with the first one. */
  private client?: UpstreamClient;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    registry: MetricsRegistry,
    stages: CallStages,
    private readonly deployments: DeploymentRouter,
    private readonly projects: BudgetLimits,
  ) {
    const definitions = settings.litellm.guardrails ?? [];
    this.running = definitions.length === 0 ? [] : runningGuardrails(definitions, registry, () => (this.client ??= new UpstreamClient()));
    this.names = new Set(definitions.map((definition) => definition.name));
    this.anyDefaultOn = definitions.some((definition) => definition.defaultOn);
    this.on = definitions.length > 0;
    stages.add(this);
  }

  open(call: StageCall): StagePass | undefined {
    return this.passOf(call.codec, call);
  }

  /**
   * The guardrails of a stream of client events that are requests of their own (a realtime
   * session's `conversation.item.create`, `response.create`, `session.update`; `family` says where
   * their text is): each event checked and masked as a call's request before it goes on (refusals
   * thrown, in the OpenAI envelope); undefined when no guardrail applies to the caller, so that
   * its events pass untouched.
   */
  eventsOf(family: TextFamily, caller: GatewayCaller, headers: StageCall['headers'], alias: string, deployment: GatewayDeployment): EventGuard | undefined {
    if (!this.on) return undefined;
    const call = { caller, headers, alias, keepsAnswer: false };
    if (!this.passOf(family, { ...call, body: {} })) return undefined;
    return async (event) => {
      const pass = this.passOf(family, { ...call, body: event });
      if (!pass) return event;
      await pass.check?.();
      return pass.request ? pass.request(event, deployment, true) : event;
    };
  }

  /**
   * The guardrails on a session's server events that make its answers (a realtime session's
   * responses), as a stream's: hooks for one answer's events at a time (`final` with its last
   * event), made anew for each answer; undefined when no guardrail checks the caller's answers.
   */
  answerEventsOf(family: TextFamily, caller: GatewayCaller, headers: StageCall['headers'], alias: string): (() => AnswerEvents) | undefined {
    if (!this.on) return undefined;
    const call = { caller, headers, alias, keepsAnswer: false, body: {} };
    if (!this.passOf(family, call)?.events) return undefined;
    return () => {
      const { events, ended } = this.passOf(family, call) as StagePass & AnswerEvents;
      return { events, ...(ended ? { ended } : {}) };
    };
  }

  private passOf(codec: TextFamily, { caller, body: sent, headers }: Omit<StageCall, 'codec'>): StagePass | undefined {
    const body = codec.requestFormat === 'multipart' ? namedInForm(sent) : sent;
    const metadata = body['metadata'];
    const inMetadata = typeof metadata === 'object' && metadata !== null && FIELD in metadata;
    // A key's own, and its project's (LiteLLM's team guardrails, /team/update).
    const ofProject = caller.kind === 'virtual' && this.projects.any('project') ? (this.projects.of('project', caller.key.project)?.guardrails ?? NONE) : NONE;
    const ofKey = caller.kind !== 'virtual' ? NONE : ofProject.length === 0 ? caller.key.guardrails : [...caller.key.guardrails, ...ofProject];
    if (!this.anyDefaultOn && ofKey.length === 0 && !(FIELD in body) && !inMetadata) return undefined;
    const requested = this.requested(body[FIELD], FIELD);
    const alsoRequested = inMetadata ? this.requested((metadata as Record<string, unknown>)[FIELD], `metadata.${FIELD}`) : [];
    const applying = this.running.filter(
      ({ definition }) => definition.defaultOn || ofKey.includes(definition.name) || requested.includes(definition.name) || alsoRequested.includes(definition.name),
    );
    // A guardrail the caller or its key asked for is never skipped in silence.
    const asked = ofKey.length > 0 || requested.length > 0 || alsoRequested.length > 0;
    const before = applying.filter(checksRequest);
    const after = applying.filter(checksAnswer);
    const text = before.length > 0 ? codec.requestText : undefined;
    if (before.length > 0 && !text && asked) throw badRequest(`Guardrails are not run on ${codec.description} yet.`, FIELD);
    const answers = after.length > 0 ? codec.answerText : undefined;
    if (after.length > 0 && !answers && asked) throw badRequest(`Guardrails are not run on the answers of ${codec.description} yet.`, FIELD);
    const moderatedAnswers = answers ? after.filter(isModerating) : [];
    const askedAnswers = answers ? after.filter(isAsking) : [];
    const moderatedRequest = text ? before.filter(isModerating) : [];
    const askedRequest = text ? before.filter(isAsking) : [];
    const masking = new Set<RunningGuardrail>();
    const filtering = before.filter(isFiltering);
    const upstream = withoutGuardrailsField(text && filtering.length > 0 ? text.map(body, (value) => guarded(value, filtering, masking, 'request')) : body, inMetadata);
    for (const guardrail of masking) guardrail.masked.inc();
    // What the guardrail APIs rewrote in the request, text by text, for every attempt's request.
    const rewrites = new Map<string, string>();
    const rewrite = (request: Record<string, unknown>) => (text && rewrites.size > 0 ? text.map(request, (value) => rewrites.get(value) ?? value) : request);
    const checks = text && (moderatedRequest.length > 0 || askedRequest.length > 0);
    return {
      ...(checks
        ? {
            check: async () => {
              await this.moderate(texts(text.map, body), moderatedRequest, 'request');
              for (const guardrail of askedRequest) {
                const found = texts(text.map, rewrite(upstream));
                const rewritten = await this.ask(guardrail, found, 'request', caller, body, headers);
                found.forEach((value, index) => {
                  const next = rewritten?.[index];
                  if (next !== undefined && next !== value) rewrites.set(value, next);
                });
              }
            },
          }
        : {}),
      // A stage before this one may have made the request anew (a stored conversation with its
      // earlier turns): that is masked too; refusals were decided on what the caller sent.
      request: (asked) => {
        if (asked === sent) return rewrite(upstream);
        return rewrite(withoutGuardrailsField(text ? text.map(asked, (value) => masked(value, filtering)) : asked, inMetadata));
      },
      ...(answers
        ? answerHooks(
            answers,
            after.filter(isFiltering),
            async (document) => {
              await this.moderate(texts(answers.map, document), moderatedAnswers, 'answer');
              let current = document;
              for (const guardrail of askedAnswers) {
                const rewritten = await this.ask(guardrail, texts(answers.map, current), 'answer', caller, body, headers);
                if (!rewritten) continue;
                let index = 0;
                current = answers.map(current, (value) => (value === '' ? value : (rewritten[index++] ?? value)));
              }
              return current;
            },
            moderatedAnswers.length > 0 || askedAnswers.length > 0 ? (found) => this.checkStreamed(found, moderatedAnswers, askedAnswers, caller, body, headers) : undefined,
          )
        : {}),
    };
  }

  /**
   * A vendor pass-through call whose body is a model call of `call.codec` (`/openai/v1/chat/completions`,
   * `/anthropic/v1/messages`): checked as the pipeline's calls are, so that the pass-through is no
   * way around a guardrail. The request the upstream is to get (masked; refusals thrown in the
   * family's envelope) and the hooks on its answer (a JSON one rewritten, a stream's events);
   * undefined when no guardrail applies.
   */
  async passThrough(call: StageCall, deployment: GatewayDeployment): Promise<GuardedPassThrough | undefined> {
    const pass = this.open(call);
    if (!pass) return undefined;
    await pass.check?.();
    const { rewrite, events, ended } = pass;
    return {
      body: pass.request ? pass.request(call.body, deployment, true) : call.body,
      ...(rewrite ? { rewrite } : {}),
      ...(events ? { events } : {}),
      ...(ended ? { ended } : {}),
    };
  }

  /**
   * A generic guardrail API's verdict on the texts: refused (BLOCKED, or an error that fails closed),
   * or the texts as the API rewrote them (undefined: as they were).
   */
  private async ask(
    guardrail: AskingGuardrail,
    found: readonly string[],
    of: 'request' | 'answer',
    caller: GatewayCaller,
    body: Record<string, unknown>,
    headers: StageCall['headers'],
  ): Promise<readonly string[] | undefined> {
    if (found.length === 0) return undefined;
    const requestData: Record<string, string> = {};
    if (caller.kind === 'virtual') Object.assign(requestData, { user_api_key_hash: caller.key.keyHash, user_api_key_team_id: caller.key.project });
    if (typeof body['user'] === 'string') requestData['user_api_key_end_user_id'] = body['user'];
    let verdict;
    try {
      verdict = await guardrail.api.check({ texts: found, inputType: of === 'request' ? 'request' : 'response', requestData, requestHeaders: headers });
    } catch (error) {
      if (!(error instanceof GuardrailApiError)) throw error;
      throw new ProviderError(502, 'api_error', `The guardrail "${excerpt(guardrail.definition.name)}" could not check the call: ${error.message}.`, 'guardrail_unavailable');
    }
    if (verdict.action === 'BLOCKED') throw refusal(guardrail, { rule: verdict.reason, keyword: false }, of, 'blocked:');
    if (verdict.action === 'NONE') {
      if (verdict.failedOpen)
        this.logger.error(
          `Generic Guardrail API error (fail-open): the guardrail "${guardrail.definition.name}" could not check a call (${verdict.failedOpen}); it went on unchecked`,
        );
      return undefined;
    }
    if (verdict.texts) guardrail.masked.inc();
    return verdict.texts;
  }

  /**
   * A streamed answer's texts so far, before the whole-text guardrails: refused when a moderation
   * flags them or an API blocks them, and when an API would rewrite them, since what it would
   * change may have reached the client already.
   */
  private async checkStreamed(
    found: readonly string[],
    moderating: readonly ModeratingGuardrail[],
    asking: readonly AskingGuardrail[],
    caller: GatewayCaller,
    body: Record<string, unknown>,
    headers: StageCall['headers'],
  ): Promise<void> {
    await this.moderate(found, moderating, 'answer');
    for (const guardrail of asking) {
      const rewritten = await this.ask(guardrail, found, 'answer', caller, body, headers);
      if (rewritten?.some((text, index) => text !== found[index])) {
        throw refusal(guardrail, { rule: 'a rewrite of text already streamed', keyword: false }, 'answer', 'it asked for');
      }
    }
  }

  /** Refuses when a moderating guardrail's alias flags any of the texts (each guardrail asked in turn). */
  private async moderate(found: readonly string[], guardrails: readonly ModeratingGuardrail[], of: 'request' | 'answer'): Promise<void> {
    for (const guardrail of guardrails) {
      const category = await moderationRefusal(found, guardrail.moderation, this.deployments);
      if (category) throw refusal(guardrail, { rule: category, keyword: false }, of, 'flagged as');
    }
  }

  /** The guardrail names a request gives (at `at`), each one the config has. */
  private requested(value: unknown, at: string): string[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) throw badRequest(`${at} must be a list of guardrail names.`, at);
    const unknown = value.filter((name) => !this.names.has(name));
    if (unknown.length > 0) {
      const { quoted, more } = excerptList(unknown);
      throw badRequest(
        `No guardrail named ${quoted.map((name) => `"${name}"`).join(', ')}${more > 0 ? ` (and ${more} more)` : ''} is configured; there are ${[...this.names].map((name) => `"${name}"`).join(', ')}.`,
        at,
      );
    }
    return value as string[];
  }
}

/** The config's guardrails compiled, each with its series of the actions counter (registered only when there are guardrails). */
function runningGuardrails(definitions: readonly GuardrailDefinition[], registry: MetricsRegistry, client: () => UpstreamClient): RunningGuardrail[] {
  const actions = new SeriesCounter({
    name: 'arbor_aigw_guardrail_actions_total',
    help: 'Calls a guardrail refused (action block) or whose text it masked (action mask), by guardrail.',
    labelNames: ['guardrail', 'action'],
    registers: [registry],
  });
  return definitions.map((definition) => ({
    definition,
    modes: new Set(definition.modes),
    ...(definition.kind === 'litellm_content_filter'
      ? { filter: new ContentFilter(definition.contentFilter) }
      : definition.kind === 'openai_moderation'
        ? { moderation: definition.moderation }
        : { api: new GuardrailApi(definition.api, client()) }),
    blocked: actions.series({ guardrail: definition.name, action: 'block' }),
    masked: actions.series({ guardrail: definition.name, action: 'mask' }),
  }));
}

/**
 * A text after every guardrail that applies: masked (the guardrails that masked it added to
 * `masking`), or refused. On the request, a `during_call` guardrail only refuses (LiteLLM runs it
 * alongside the call, where it cannot change the request).
 */
function guarded(text: string, applying: readonly FilteringGuardrail[], masking: Set<RunningGuardrail>, of: 'request' | 'answer'): string {
  let result = text;
  for (const guardrail of applying) {
    const verdict = guardrail.filter.filter(result);
    if ('blocked' in verdict) throw refusal(guardrail, verdict.blocked, of);
    if (of === 'request' && !guardrail.modes.has('pre_call')) continue;
    if (verdict.text !== result) masking.add(guardrail);
    result = verdict.text;
  }
  return result;
}

/** The refusal of what `guardrail` blocked (counted), naming it and the rule, never the text. */
function refusal(guardrail: RunningGuardrail, blocked: ContentBlocked, of: 'request' | 'answer', found = 'pattern detected'): ProviderError {
  guardrail.blocked.inc();
  const what = blocked.keyword
    ? 'a blocked keyword was detected'
    : blocked.category
      ? `${excerpt(blocked.rule)} category detected`
      : found === 'pattern detected'
        ? `${excerpt(blocked.rule)} pattern detected`
        : `${found} ${excerpt(blocked.rule)}`;
  const subject = of === 'request' ? 'Content blocked' : 'The answer was blocked';
  return new ProviderError(400, 'invalid_request_error', `${subject} by guardrail "${excerpt(guardrail.definition.name)}": ${what}.`, 'guardrail_violation', FIELD);
}

/** The hooks on the answer of the guardrails that check it: a JSON answer rewritten whole, a stream's events as they pass. */
function answerHooks(
  answers: AnswerText,
  after: readonly FilteringGuardrail[],
  /** The guardrails that look at a JSON answer whole, after the filters (they refuse by throwing). */
  checkWhole: (document: Record<string, unknown>) => Promise<Record<string, unknown>>,
  /** The same guardrails on a stream's texts so far (none: no guardrail of them applies). */
  checkStreamed: ((texts: string[]) => Promise<void>) | undefined,
): Pick<StagePass, 'rewrite' | 'events' | 'ended'> {
  const masking = new Set<RunningGuardrail>();
  const counted = () => {
    for (const guardrail of masking) guardrail.masked.inc();
    masking.clear();
  };
  let stream: AnswerStreamGuard | undefined;
  // What the client gets, after the filters: gathered for the whole-text guardrails as it passes.
  const checks = checkStreamed ? new StreamedTextChecks(answers, checkStreamed) : undefined;
  return {
    rewrite: async (document) => {
      const next = after.length > 0 ? answers.map(document, (text) => guarded(text, after, masking, 'answer')) : document;
      counted();
      const checked = await checkWhole(next);
      return checked === document ? undefined : checked;
    },
    events: (text, final) => {
      const out = after.length > 0 ? filteredEvents(text, final) : text;
      return checks ? checks.events(out, final) : out;
    },
    ...(checks ? { ended: () => checks.end() } : {}),
  };

  function filteredEvents(text: string, final: boolean): string {
    stream ??= new AnswerStreamGuard(
      answers,
      after.map(({ filter }) => filter),
      (whole) => guarded(whole, after, masking, 'answer'),
      (blocked, by) => refusal(after[by] as RunningGuardrail, blocked, 'answer'),
    );
    const out = stream.events(text, final);
    if (final) {
      for (const index of stream.maskedBy()) masking.add(after[index] as FilteringGuardrail);
      counted();
    }
    return out;
  }
}

/** A text with every applying guardrail's MASK rules applied. */
/** The texts `map` finds in `document`, in order. */
function texts(map: (document: Record<string, unknown>, replace: (text: string) => string) => Record<string, unknown>, document: Record<string, unknown>): string[] {
  const found: string[] = [];
  map(document, (text) => {
    if (text !== '') found.push(text);
    return text;
  });
  return found;
}

function masked(text: string, applying: readonly FilteringGuardrail[]): string {
  let result = text;
  for (const { filter, modes } of applying) {
    if (!modes.has('pre_call')) continue;
    const verdict = filter.filter(result, true);
    if ('text' in verdict) result = verdict.text;
  }
  return result;
}

/** The request without the gateway's `guardrails` field (in the body and in its metadata). */
function withoutGuardrailsField(body: Record<string, unknown>, inMetadata: boolean): Record<string, unknown> {
  if (!(FIELD in body) && !inMetadata) return body;
  const { [FIELD]: _field, ...rest } = body;
  if (inMetadata) {
    const { [FIELD]: _inner, ...metadata } = body['metadata'] as Record<string, unknown>;
    rest['metadata'] = metadata;
  }
  return rest;
}

/**
 * A form's body with the guardrails it names as the JSON calls name them: `guardrails[]` fields (the
 * SDKs' encoding of a list), or a `guardrails` field holding a name or a JSON list of names.
 */
function namedInForm(body: Record<string, unknown>): Record<string, unknown> {
  if (!(FORM_FIELD in body) && typeof body[FIELD] !== 'string') return body;
  const { [FORM_FIELD]: listed, [FIELD]: named, ...rest } = body;
  const names = [listed, named]
    .flatMap((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
    .flatMap((value) => {
      if (typeof value !== 'string' || !value.startsWith('[')) return [value];
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return [value];
      }
    });
  return { ...rest, [FIELD]: names };
}
