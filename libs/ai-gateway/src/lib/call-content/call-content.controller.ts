import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '@arbor/contract';
import { AI_GATEWAY, READERS } from '../admin/admin-access';
import { CallContent } from './call-content';

/** GET /api/v1/call-log/settings: whether the call log holds calls' content, for the UI to say so. */
export class CallLogSettings {
  @ApiProperty({ description: 'Messages and answers are kept in call records (general_settings.store_prompts_in_spend_logs).' })
  content_kept!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['store_prompts_in_spend_logs', 'turn_off_message_logging', 'disable_spend_logs'],
    description: 'When not kept: the setting that keeps them out.',
  })
  content_off_by!: 'store_prompts_in_spend_logs' | 'turn_off_message_logging' | 'disable_spend_logs' | null;

  @ApiProperty({ type: 'integer', description: 'Each kept field is cut at this many characters (and the record says `truncated`).' })
  max_field_chars!: number;
}

/** The call log's settings, for those who may read the call log (the master key, ai-gateway.viewer or .operator on any project). */
@ApiTags('spend')
@ApiBearerAuth()
@Controller('api/v1/call-log')
export class CallContentController {
  constructor(private readonly content: CallContent) {}

  @Get('settings')
  @ApiOkResponse({ type: CallLogSettings })
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  settings(): CallLogSettings {
    const { kept, off, maxFieldChars } = this.content.settings;
    return { content_kept: kept, content_off_by: off ?? null, max_field_chars: maxFieldChars };
  }
}
