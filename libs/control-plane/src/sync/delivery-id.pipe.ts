import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from '@arbor/platform';

const MAX_BIGINT = 9223372036854775807n;

/** A delivery id in a path: a positive 64-bit integer, else 400 invalid_request before the database sees it. */
@Injectable()
export class DeliveryIdParam implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value === 'string' && /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) <= MAX_BIGINT) return value;
    throw new ApiError(400, 'invalid_request', 'Invalid id: must be a delivery id (a positive integer)', { fields: { id: ['id must be a positive integer'] } });
  }
}
