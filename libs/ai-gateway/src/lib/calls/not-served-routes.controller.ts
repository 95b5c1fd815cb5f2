import { All, Controller, Get, Post, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ClientEnvelopeErrorFilter } from '../client-envelope-error.filter';
import { endpointNotServed, storedCompletionsNotServed } from '../gateway-errors';
import { GatewayKeyGuard } from '../gateway-key.guard';

/**
 * OpenAI-format routes the gateway knows and does not serve (the seed's differences): stored
 * completions, image variations, audio translations, fine-tuning. Known, so that the SDKs get a
 * clear 404 in the envelope (after the key check) rather than an unknown route. The calls are CallRoutes.
 */
@Controller()
@UseGuards(GatewayKeyGuard)
@UseFilters(ClientEnvelopeErrorFilter)
export class NotServedRoutesController {
  @Get(['v1/chat/completions/:id', 'chat/completions/:id'])
  stored(): never {
    throw storedCompletionsNotServed();
  }

  @Post(['v1/images/variations', 'images/variations'])
  imageVariations(): never {
    throw endpointNotServed('Image variations');
  }

  @Post(['v1/audio/translations', 'audio/translations'])
  audioTranslations(): never {
    throw endpointNotServed('Audio translations');
  }

  // Fine-tuning is the reference gateway's enterprise feature; this gateway does not serve it.
  @All(['v1/fine_tuning', 'v1/fine_tuning/*path', 'fine_tuning', 'fine_tuning/*path'])
  @ApiOperation({ summary: "Fine-tuning jobs and checkpoints: not served (404 not_served in the caller's envelope, after the key check)" })
  fineTuning(): never {
    throw endpointNotServed('Fine-tuning jobs and checkpoints');
  }
}
