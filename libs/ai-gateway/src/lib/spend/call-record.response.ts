import { ApiProperty } from '@nestjs/swagger';

/** What a call's record says beyond LiteLLM's columns. */
export class CallRecordMetadata {
  @ApiProperty({ type: String, nullable: true })
  key_alias!: string | null;

  @ApiProperty({ type: 'integer', example: 200 })
  status_code!: number;

  @ApiProperty({ type: String, nullable: true, example: 'budget_exceeded', description: "A failed or refused call's code (guardrail_violation, budget_exceeded…), else null." })
  error_code!: string | null;

  @ApiProperty({ type: 'integer' })
  retries!: number;

  @ApiProperty({ type: 'integer' })
  fallbacks!: number;
}

/**
 * A call's content, kept only when the config turns it on (general_settings.store_prompts_in_spend_logs):
 * the request's prompt fields as sent upstream and the answer as the client got it.
 */
export class CallRecordContent {
  @ApiProperty({
    description:
      "The request's prompt fields (messages, system, instructions, input, prompt) as the last attempt sent them upstream; a field cut at its cap is its JSON text, cut.",
  })
  messages!: unknown;

  @ApiProperty({ required: false, description: 'The answer as the client got it: the JSON document, or a stream as its events (text). Absent for a failed call.' })
  response?: unknown;

  @ApiProperty({ required: false })
  streamed?: boolean;

  @ApiProperty({ description: 'A field was cut at the cap (GET /api/v1/call-log/settings: max_field_chars).' })
  truncated!: boolean;
}

/** One call as LiteLLM's single-call /spend/logs lists it (its field names; metadata, and content only when the config keeps it). */
export class LiteLlmSpendLog {
  @ApiProperty({ description: 'Its x-arbor-call-id.' })
  request_id!: string;

  @ApiProperty({ type: String, nullable: true, description: "The key's token (SHA-256); null: the master key." })
  api_key!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The project (LiteLLM's team)." })
  team_id!: string | null;

  @ApiProperty({ type: String, nullable: true })
  end_user!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The person the key is for (its user_id), as LiteLLM's `user`." })
  user!: string | null;

  @ApiProperty({ type: [String] })
  request_tags!: string[];

  @ApiProperty({ description: 'The alias called.' })
  model!: string;

  @ApiProperty()
  model_group!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The deployment that answered; null when none did.' })
  model_id!: string | null;

  @ApiProperty({ type: String, nullable: true })
  custom_llm_provider!: string | null;

  @ApiProperty({ type: 'integer' })
  prompt_tokens!: number;

  @ApiProperty({ type: 'integer' })
  completion_tokens!: number;

  @ApiProperty({ type: 'integer' })
  total_tokens!: number;

  @ApiProperty({ description: 'USD.' })
  spend!: number;

  @ApiProperty({ enum: ['success', 'failure'] })
  status!: 'success' | 'failure';

  @ApiProperty({ format: 'date-time' })
  startTime!: string;

  @ApiProperty({ format: 'date-time' })
  endTime!: string;

  @ApiProperty({ type: 'integer' })
  request_duration_ms!: number;

  @ApiProperty({ enum: ['True', 'False'] })
  cache_hit!: 'True' | 'False';

  @ApiProperty({ type: CallRecordMetadata })
  metadata!: CallRecordMetadata;

  @ApiProperty({ type: CallRecordContent, required: false, description: 'Only when general_settings.store_prompts_in_spend_logs kept it.' })
  content?: CallRecordContent;
}
