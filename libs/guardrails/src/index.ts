export { ContentFilter, masked, scanAll } from './lib/content-filter';
export type { ContentBlocked } from './lib/content-filter';
export { readGuardrails, SERVED_GUARDRAILS } from './lib/guardrail-config';
export type {
  ContentFilterGuardrail,
  ContentFilterSettings,
  FilterAction,
  FilterPattern,
  GuardrailDefinition,
  GuardrailKind,
  GuardrailMode,
  GuardrailScope,
  GuardrailApiGuardrail,
  GuardrailApiSettings,
  ModerationGuardrail,
  ModerationSettings,
} from './lib/guardrail-config';
export { PREBUILT_PATTERN_NAMES } from './lib/prebuilt-patterns';
export type { MaskedSpan, ScanVerdict } from './lib/content-filter';
export { STREAM_WINDOW, WindowedFilter } from './lib/windowed-filter';
export type { StreamPiece } from './lib/windowed-filter';
export { GuardrailApi, GuardrailApiError } from './lib/guardrail-api';
export type { GuardrailApiCall, GuardrailApiVerdict } from './lib/guardrail-api';
