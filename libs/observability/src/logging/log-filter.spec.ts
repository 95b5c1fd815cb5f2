import { InvalidLogFilterError, LogFilter, logTargetFor, parseLogFilter } from './log-filter';

describe('parseLogFilter', () => {
  it('reads a bare level as the default for every module', () => {
    const filter = parseLogFilter('info');
    expect(filter.defaultLevel).toBe('info');
    expect(filter.directives).toEqual([]);
    expect(filter.levelFor('anything')).toBe('info');
    expect(filter.levelFor(undefined)).toBe('info');
  });

  it('reads module directives next to the default', () => {
    const filter = parseLogFilter('warn,outbox=debug,http=info');
    expect(filter.defaultLevel).toBe('warn');
    expect(filter.levelFor('outbox')).toBe('debug');
    expect(filter.levelFor('http')).toBe('info');
    expect(filter.levelFor('billing')).toBe('warn');
  });

  it('matches a target and its `::` children, not names that merely start alike', () => {
    const filter = parseLogFilter('warn,outbox=debug,outbox::claim=error');
    expect(filter.levelFor('outbox::retry')).toBe('debug');
    expect(filter.levelFor('outbox::claim')).toBe('error');
    expect(filter.levelFor('outbox::claim::sql')).toBe('error');
    expect(filter.levelFor('outboxes')).toBe('warn');
  });

  it('accepts off, any case and whitespace, as the config validator does', () => {
    expect(parseLogFilter('off').levelFor('x')).toBe('off');
    const filter = parseLogFilter(' WARN , outbox = Debug ');
    expect(filter.defaultLevel).toBe('warn');
    expect(filter.levelFor('outbox')).toBe('debug');
  });

  it('lets a later directive for the same target win', () => {
    const filter = parseLogFilter('info,outbox=debug,warn,outbox=trace');
    expect(filter.defaultLevel).toBe('warn');
    expect(filter.levelFor('outbox')).toBe('trace');
  });

  it('keeps errors from unlisted modules when no default is given', () => {
    expect(parseLogFilter('outbox=debug').levelFor('billing')).toBe('error');
  });

  it('round-trips through toString', () => {
    expect(parseLogFilter('warn,outbox=debug,http=info').toString()).toBe('warn,outbox=debug,http=info');
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['loud', 'not a level'],
    ['outbox', 'a target needs a level'],
    ['info,', 'empty directive'],
    [',info', 'empty directive'],
    ['outbox=', 'not a level'],
    ['=debug', 'not a target name'],
    ['outbox=debug=info', 'more than one'],
    ['out/box=debug', 'not a target name'],
    ['info,outbox=verbose', 'not a level'],
  ])('rejects %j (%s)', (filter, reason) => {
    expect(() => parseLogFilter(filter)).toThrow(InvalidLogFilterError);
    expect(() => parseLogFilter(filter)).toThrow(reason);
  });
});

describe('LogFilter levels', () => {
  it('lets a line through at or above its target level', () => {
    const filter = parseLogFilter('warn,outbox=debug');
    expect(filter.enabled('outbox', 'debug')).toBe(true);
    expect(filter.enabled('outbox', 'trace')).toBe(false);
    expect(filter.enabled('billing', 'info')).toBe(false);
    expect(filter.enabled('billing', 'warn')).toBe(true);
    expect(filter.enabled('billing', 'fatal')).toBe(true);
  });

  it('off stops even fatal lines', () => {
    expect(parseLogFilter('info,noisy=off').enabled('noisy', 'fatal')).toBe(false);
  });

  it('reports the most verbose level so the root logger can let it through', () => {
    expect(parseLogFilter('warn,outbox=debug,http=info').mostVerbose()).toBe('debug');
    expect(parseLogFilter('info,noisy=off').mostVerbose()).toBe('info');
    expect(parseLogFilter('off').mostVerbose()).toBe('off');
    expect(new LogFilter('error', [{ target: 'a', level: 'trace' }]).mostVerbose()).toBe('trace');
  });
});

describe('logTargetFor', () => {
  it("maps Nest's framework contexts to nest and leaves others alone", () => {
    for (const context of ['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']) {
      expect(logTargetFor(context)).toBe('nest');
    }
    expect(logTargetFor('outbox')).toBe('outbox');
    expect(logTargetFor(undefined)).toBeUndefined();
  });
});
