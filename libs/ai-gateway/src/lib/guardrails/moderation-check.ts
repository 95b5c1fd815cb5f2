import type { ModerationSettings } from '@arbor/guardrails';
import { nativeOperation, ProviderError, readAll } from '@arbor/provider-adapters';
import type { DeploymentRouter } from '../deployment-router';

// A moderation answer lists a few dozen categories per text.
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

interface ModerationResult {
  flagged?: unknown;
  categories?: Record<string, unknown>;
  category_scores?: Record<string, unknown>;
}

/**
 * OpenAI's moderation of some texts, asked of an alias of the gateway's own model_list (LiteLLM's
 * `openai_moderation` guardrail): the first category that refuses them (one the model flags, or
 * whose score reaches `threshold`; of `categories` only, when given), or undefined. A moderation
 * that fails is a failure of the call (502), never a pass.
 */
export async function moderationRefusal(texts: readonly string[], settings: ModerationSettings, deployments: DeploymentRouter, signal?: AbortSignal): Promise<string | undefined> {
  if (texts.length === 0) return undefined;
  const deployment = deployments.pick(settings.model);
  const operation = deployment ? nativeOperation(deployment.provider, 'moderation') : undefined;
  if (!deployment || !operation) throw unavailable(`no deployment of "${settings.model}" answers moderations`);
  let results: ModerationResult[];
  try {
    const answer = await operation.call({ deployment, body: { input: [...texts] }, signal: signal ?? new AbortController().signal });
    const document = JSON.parse((await readAll(answer.body, MAX_ANSWER_BYTES)).toString('utf8')) as { results?: unknown };
    if (!Array.isArray(document.results)) throw new Error('the answer has no results');
    results = document.results as ModerationResult[];
  } catch (error) {
    throw unavailable(error instanceof ProviderError ? `${settings.model} answered ${error.status}` : error instanceof Error ? error.message : String(error));
  }
  for (const result of results) {
    const category = refusingCategory(result, settings);
    if (category) return category;
  }
  return undefined;
}

function refusingCategory(result: ModerationResult, settings: ModerationSettings): string | undefined {
  const names = settings.categories ?? Object.keys(result.categories ?? result.category_scores ?? {});
  for (const name of names) {
    const score = result.category_scores?.[name];
    const refuses = settings.threshold !== undefined ? typeof score === 'number' && score >= settings.threshold : result.categories?.[name] === true;
    if (refuses) return name;
  }
  // Flagged with no category named (or none of the listed ones): only a refusal when no list narrows it.
  return settings.categories === undefined && settings.threshold === undefined && result.flagged === true ? 'flagged' : undefined;
}

function unavailable(why: string): ProviderError {
  return new ProviderError(502, 'api_error', `The moderation guardrail could not check the call: ${why}.`, 'guardrail_unavailable');
}
