import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const DELIVERY_VIEWS = ['pending', 'failing'] as const;
export type DeliveryView = (typeof DELIVERY_VIEWS)[number];

export const MAX_DELIVERIES_PER_PAGE = 500;

export class ListSyncDeliveriesQuery {
  @ApiPropertyOptional({
    enum: DELIVERY_VIEWS,
    default: 'pending',
    description: '`pending`: every delivery not yet answered with 2xx; `failing`: the pending ones already tried at least once.',
  })
  @IsOptional()
  @IsIn(DELIVERY_VIEWS)
  state: DeliveryView = 'pending';

  @ApiPropertyOptional({ example: 'ai-gateway', description: 'Only the deliveries to this product key.' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: 'product must be a product key such as ai-gateway' })
  product?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_DELIVERIES_PER_PAGE, default: 100, description: 'Deliveries per page, oldest first.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_DELIVERIES_PER_PAGE)
  limit = 100;

  @ApiPropertyOptional({ example: '1042', description: 'The next page: deliveries after this id (`next_after_id` of the previous page).' })
  @IsOptional()
  @Matches(/^[0-9]{1,19}$/, { message: 'after_id must be a delivery id' })
  after_id?: string;
}
