// A value that conforms to a JSON schema, as a model answering a tool call or a structured output
// would write it: every required property (an open object that requires none gets the fakes'
// usual {"argument":"fake"}), enum and const values as given, strings "fake" (or the named
// format's example), numbers at their minimum, arrays of minItems (at least one) items.
type Schema = Record<string, unknown>;

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00',
  email: 'fake@example.com',
  uri: 'https://example.com/fake',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/** A value conforming to `schema` (`root`: the document its `$ref`s point into). */
export function sampleOf(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 16) return 'fake';
  const node = schema as Schema;
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Schema)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
    return sampleOf(target, root, depth + 1);
  }
  if ('const' in node) return node['const'];
  if (Array.isArray(node['enum']) && node['enum'].length > 0) return node['enum'][0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const variants = node[key];
    if (Array.isArray(variants) && variants.length > 0) return sampleOf(variants.find((variant) => (variant as Schema)?.['type'] !== 'null') ?? variants[0], root, depth + 1);
  }
  if (Array.isArray(node['allOf']) && node['allOf'].length > 0) return sampleOf(Object.assign({}, ...(node['allOf'] as Schema[])), root, depth + 1);
  const type = Array.isArray(node['type']) ? (node['type'].find((entry) => entry !== 'null') ?? node['type'][0]) : node['type'];
  switch (type) {
    case 'string':
      return FORMATS[String(node['format'])] ?? 'fake';
    case 'integer':
      return Math.ceil(typeof node['minimum'] === 'number' ? node['minimum'] : 1);
    case 'number':
      return typeof node['minimum'] === 'number' ? node['minimum'] : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const count = Math.max(1, typeof node['minItems'] === 'number' ? node['minItems'] : 1);
      return Array.from({ length: count }, () => sampleOf(node['items'] ?? { type: 'string' }, root, depth + 1));
    }
    default: {
      const properties = (typeof node['properties'] === 'object' && node['properties'] !== null ? node['properties'] : {}) as Schema;
      const required = Array.isArray(node['required']) ? (node['required'] as string[]) : [];
      const object: Schema = {};
      for (const name of required) object[name] = sampleOf(properties[name] ?? {}, root, depth + 1);
      if (required.length === 0 && node['additionalProperties'] !== false && depth === 0) object['argument'] = 'fake';
      return object;
    }
  }
}
