import { Injectable } from '@nestjs/common';

/** Milliseconds since the epoch. A provider of its own so that tests move time instead of sleeping. */
@Injectable()
export class GatewayClock {
  now(): number {
    return Date.now();
  }
}
