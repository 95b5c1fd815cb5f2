// The AI gateway's admin API as this UI calls it, typed from apps/ai-gateway/openapi.json (this
// app's generate-api target writes ai-gateway.schema.generated.ts; `npm run api:update` refreshes
// the document), as every product UI's client is. The names the pages use for its schemas:
import type { components, paths } from './ai-gateway.schema.generated';

export type { paths };
type Schemas = components['schemas'];

/** A key as the admin API shows it: never the secret, except `key` once on create and rotate. */
export type GatewayKey = Schemas['KeyResponse'];
/** What a person sets on a key: absent keeps, null clears. */
export type KeySettings = Schemas['UpdateKeyDto'];
export type CreateKeyBody = Schemas['CreateKeyDto'];
/** Calls, tokens and cost of a slice of spend (UTC days, as spend_daily counts them). */
export type SpendTotals = Schemas['SpendTotals'];
/** GET /api/v1/spend: a project's spend, by day, key, alias, deployment, repository and person. */
export type ProjectSpendReport = Schemas['ProjectSpendReport'];
/** GET /api/v1/aliases: what keys can call, with the deployments behind each alias. */
export type GatewayAlias = Schemas['AliasResponse'];
/** GET /spend/logs?summarize=false: one call as LiteLLM's single-call spend log lists it (metadata; content only when the config keeps it). */
export type CallRecord = Schemas['LiteLlmSpendLog'];
/** A call's content, kept only when the gateway's config turns it on (general_settings.store_prompts_in_spend_logs). */
export type CallContent = Schemas['CallRecordContent'];
/** GET /api/v1/call-log/settings: whether the gateway keeps calls' content, and if not, which setting keeps it out. */
export type CallLogSettings = Schemas['CallLogSettings'];
