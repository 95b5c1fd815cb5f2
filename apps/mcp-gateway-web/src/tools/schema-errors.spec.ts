import { Validator, type Schema } from '@cfworker/json-schema';
import { draftOf, rjsfErrors, withRootDefinitions } from './schema-errors';

const ECHO = { type: 'object', properties: { message: { type: 'string', minLength: 2 }, times: { type: 'integer' } }, required: ['message'] };

const problems = (schema: object, data: unknown) => rjsfErrors(new Validator(schema as Schema, '2020-12', false).validate(data).errors);

describe("checking a tool's arguments against its input schema in the browser", () => {
  it('finds nothing wrong with arguments the schema allows', () => {
    expect(problems(ECHO, { message: 'hi', times: 2 })).toEqual([]);
  });

  it('names the field of each problem, a missing required one included, so the form shows it there', () => {
    expect(problems(ECHO, { times: 1.5 }).map((error) => [error.property, error.message])).toEqual(
      expect.arrayContaining([
        ['.message', 'is a required property'],
        ['.times', expect.stringContaining('integer')],
      ]),
    );
    // Only the field's own problem, not the "properties" summary above it.
    expect(problems(ECHO, { message: 'x' }).map((error) => error.property)).toEqual(['.message']);
  });

  it("resolves a part of the schema against the whole one's definitions", () => {
    const root = { type: 'object', $defs: { name: { type: 'string' } }, properties: { who: { $ref: '#/$defs/name' } } } as const;
    const part = withRootDefinitions({ $ref: '#/$defs/name' }, root);
    expect(problems(part, 'ada')).toEqual([]);
    expect(problems(part, 7)).toHaveLength(1);
  });

  it('reads a schema in the dialect it names, 2020-12 when it names none', () => {
    expect(draftOf({ $schema: 'http://json-schema.org/draft-07/schema#' })).toBe('7');
    expect(draftOf({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe('2020-12');
    expect(draftOf({})).toBe('2020-12');
  });
});
