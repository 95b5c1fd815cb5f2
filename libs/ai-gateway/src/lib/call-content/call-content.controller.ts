import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '@arbor/contract';
import { AI_GATEWAY, READERS } from '../admin/admin-access';
import { CallContent } from './call-content';

/** GET /api/v1/call-log/settings: whether the call log holds calls' content, for the UI to say so. */
export interface CallLogSettings {
  /** Messages and answers are kept in call records (general_settings.store_prompts_in_spend_logs). */
  content_kept: boolean;
  /** When not kept: the setting that keeps them out (store_prompts_in_spend_logs off, turn_off_message_logging, disable_spend_logs). */
  content_off_by: string | null;
  /** Each kept field is cut at this many characters (and the record says `truncated`). */
  max_field_chars: number;
}

/** The call log's settings, for those who may read the call log (the master key, ai-gateway.viewer or .operator on any project). */
@ApiTags('spend')
@ApiBearerAuth()
@Controller('api/v1/call-log')
export class CallContentController {
  constructor(private readonly content: CallContent) {}

  @Get('settings')
  @RequirePermission(AI_GATEWAY, READERS, { project: 'any' })
  settings(): CallLogSettings {
    const { kept, off, maxFieldChars } = this.content.settings;
    return { content_kept: kept, content_off_by: off ?? null, max_field_chars: maxFieldChars };
  }
}
