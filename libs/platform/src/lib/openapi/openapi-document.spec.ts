import type { OpenAPIObject } from '@nestjs/swagger';
import { uniqueOperationIds } from './openapi-document';

type Paths = OpenAPIObject['paths'];
const operation = (operationId: string) => ({ operationId, responses: {} });
const idsOf = (paths: Paths) =>
  Object.entries(paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => `${method} ${path} ${(op as { operationId: string }).operationId}`));

describe('uniqueOperationIds', () => {
  it('keeps the first of each id and numbers the later ones _2, _3 in document order', () => {
    const paths: Paths = {
      '/v1/fine_tuning': { post: operation('NotServed_fineTuning') },
      '/v1/fine_tuning/{path}': { post: operation('NotServed_fineTuning') },
      '/keys': { get: operation('Keys_list'), post: operation('Keys_create') },
      '/fine_tuning': { post: operation('NotServed_fineTuning') },
    };
    expect(idsOf(uniqueOperationIds({ paths }).paths)).toEqual([
      'post /v1/fine_tuning NotServed_fineTuning',
      'post /v1/fine_tuning/{path} NotServed_fineTuning_2',
      'get /keys Keys_list',
      'post /keys Keys_create',
      'post /fine_tuning NotServed_fineTuning_3',
    ]);
  });

  it('never numbers an operation into an id another already has', () => {
    const paths: Paths = {
      '/a': { get: operation('list') },
      '/b': { get: operation('list') },
      '/c': { get: operation('list_2') },
    };
    expect(idsOf(uniqueOperationIds({ paths }).paths)).toEqual(['get /a list', 'get /b list_3', 'get /c list_2']);
  });

  it('leaves a document whose ids are unique as it was', () => {
    const paths: Paths = { '/a': { get: operation('a'), post: operation('b') }, '/b': { parameters: [], get: operation('c') } };
    const before = JSON.stringify(paths);
    expect(JSON.stringify(uniqueOperationIds({ paths }).paths)).toBe(before);
  });
});
