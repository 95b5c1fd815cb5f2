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
  ModerationGuardrail,
  ModerationSettings,
} from './lib/guardrail-config';
export { PREBUILT_PATTERN_NAMES } from './lib/prebuilt-patterns';
export type { MaskedSpan, ScanVerdict } from './lib/content-filter';
export { STREAM_WINDOW, WindowedFilter } from './lib/windowed-filter';
export type { StreamPiece } from './lib/windowed-filter';
