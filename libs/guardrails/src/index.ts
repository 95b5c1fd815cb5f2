export { ContentFilter } from './lib/content-filter';
export type { ContentBlocked } from './lib/content-filter';
export { readGuardrails, SERVED_GUARDRAILS } from './lib/guardrail-config';
export type { ContentFilterSettings, FilterAction, FilterPattern, GuardrailDefinition, GuardrailMode, GuardrailScope } from './lib/guardrail-config';
export { PREBUILT_PATTERN_NAMES } from './lib/prebuilt-patterns';
