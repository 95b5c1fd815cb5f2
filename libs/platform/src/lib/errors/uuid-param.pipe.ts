import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';

// What PostgreSQL's uuid type reads in its canonical form, whatever the version.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A path parameter that must be a UUID: anything else answers 400 invalid_request naming the
 * parameter, before the database sees it (`@Param('id', new UuidParam('id'))`).
 */
@Injectable()
export class UuidParam implements PipeTransform<unknown, string> {
  constructor(private readonly name: string) {}

  transform(value: unknown): string {
    if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
    throw new ApiError(400, 'invalid_request', `Invalid ${this.name}: must be a UUID`, { fields: { [this.name]: [`${this.name} must be a UUID`] } });
  }
}
