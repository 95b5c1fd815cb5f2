import { findProvider } from '@pydantic/genai-prices';

/**
 * The catalogue's providers (Pydantic's genai-prices, a maintained list of models, context windows
 * and prices; updating it is a version bump) by the name of the provider folder that serves them.
 * Providers of the catalogue that no folder serves are left out; so are Azure and Bedrock, whose
 * model names are the operator's deployments and ARNs.
 */
const CATALOGUE_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gemini',
  mistral: 'mistral',
  openrouter: 'openrouter',
  groq: 'groq',
  together: 'together_ai',
  deepseek: 'deepseek',
  'x-ai': 'xai',
  cohere: 'cohere',
  fireworks: 'fireworks_ai',
  perplexity: 'perplexity',
};

export interface CatalogueModel {
  /** The provider folder serving it (`openrouter`). */
  provider: string;
  /** A name the model is called by (`mistralai/mistral-7b-instruct`): its id, or a name its match rule equals. */
  model: string;
  /** Tokens of context, when the catalogue knows it. */
  contextWindow?: number;
}

/** Every model name of the catalogue for the providers the gateway serves, in the catalogue's order. */
export function catalogueModels(): CatalogueModel[] {
  const models: CatalogueModel[] = [];
  for (const [catalogueId, provider] of Object.entries(CATALOGUE_PROVIDERS)) {
    for (const model of findProvider({ providerId: catalogueId })?.models ?? []) {
      const contextWindow = typeof model.context_window === 'number' ? { contextWindow: model.context_window } : {};
      for (const name of new Set([model.id, ...equalNames(model.match)])) models.push({ provider, model: name, ...contextWindow });
    }
  }
  return models;
}

/** The exact names a match rule accepts (`equals`, also under `or`); patterns are not names. */
function equalNames(match: unknown): string[] {
  if (typeof match !== 'object' || match === null) return [];
  const rule = match as { equals?: unknown; or?: unknown[] };
  if (typeof rule.equals === 'string') return [rule.equals];
  return Array.isArray(rule.or) ? rule.or.flatMap(equalNames) : [];
}
