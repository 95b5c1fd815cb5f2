import { operationIdProblems, unresolvedSchemaRefs, unschemedOperations, type OpenApiShape } from './api-reference';

// A document with each fault the checks exist for: a repeated id, a missing one, a $ref to no
// schema, and a UI operation whose success answer has no JSON schema.
const faulty: OpenApiShape = {
  paths: {
    '/api/v1/keys': {
      get: { operationId: 'listKeys', responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/KeyList' } } } } } },
      post: { operationId: 'listKeys', responses: { '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Key' } } } } } },
    },
    '/api/v1/keys/{id}': {
      delete: { responses: { '204': {} } },
      patch: { operationId: 'updateKey', responses: { '200': { content: { 'text/plain': {} } } } },
    },
  },
  components: { schemas: { Key: { type: 'object' } } },
};

describe('the OpenAPI checks a typed UI client relies on', () => {
  it('name the operation ids that are missing or used twice', () => {
    expect(operationIdProblems(faulty)).toEqual({ count: 4, problems: ['listKeys is used twice', 'delete /api/v1/keys/{id} has no operationId'] });
  });

  it('name the schemas a $ref points at that the document does not have', () => {
    expect(unresolvedSchemaRefs(faulty)).toEqual({ count: 2, unresolved: ['KeyList'] });
  });

  it('name the UI operations whose success is not described by a JSON schema, or that the document lacks', () => {
    expect(unschemedOperations(faulty, ['get /api/v1/keys', 'post /api/v1/keys', 'patch /api/v1/keys/{id}', 'get /api/v1/nowhere'])).toEqual([
      'patch /api/v1/keys/{id}',
      'get /api/v1/nowhere',
    ]);
  });

  it('find nothing in a document without those faults', () => {
    const sound: OpenApiShape = {
      paths: { '/a': { get: { operationId: 'a', responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } } } } } },
      components: { schemas: { A: {} } },
    };
    expect(operationIdProblems(sound).problems).toEqual([]);
    expect(unresolvedSchemaRefs(sound).unresolved).toEqual([]);
    expect(unschemedOperations(sound, ['get /a'])).toEqual([]);
  });
});
