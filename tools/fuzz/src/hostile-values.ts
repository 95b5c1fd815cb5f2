// What an attacker sends: text PostgreSQL cannot store, text that is no Unicode at all, JSON
// nested past any sane depth, wrong types, prototype keys, path tricks and broken tokens.
import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations';

export const HOSTILE_TEXT: readonly string[] = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfff',
  '\udbff\u0000',
  'm'.repeat(20_000),
  '../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%ff',
  "' OR '1'='1' --",
  '${jndi:ldap://127.0.0.1/x}',
  '<script>alert(1)</script>',
  '',
  ' ',
  '\u202e\u0007\u001b[31m',
  '🌳'.repeat(500),
  '\r\nX-Injected: 1',
  '__proto__',
  'constructor',
  'NaN',
  '-1',
  '9'.repeat(400),
  '2026-02-30T25:61:61Z',
  'http://169.254.169.254/latest/meta-data',
];

/** Text: the list above, random code points (lone surrogates included), or ordinary text with a NUL. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((text) => `${text}\u0000`) },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udc00', '\udbff').map((surrogate) => `name${surrogate}`) },
);

const deepArrays = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const deepObjects = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;

/** A JSON value as text (so that prototype keys and lone-surrogate escapes reach the server as written). */
export const hostileJson: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileText.map((text) => JSON.stringify(text)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '1.5',
      '1e308',
      '-1e308',
      '9007199254740993',
      '2147483648',
      'true',
      'null',
      '[]',
      '{}',
      '[null]',
      '[{}]',
      deepArrays,
      deepObjects,
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      JSON.stringify(Array.from({ length: 5000 }, (_, index) => `item-${index}`)),
      `{${JSON.stringify('k'.repeat(2000))}:1}`,
      '"\\u0000"',
      '"\\ud800"',
      '["\\udfff"]',
      '{"\\u0000":1}',
    ),
  },
);

/** Object keys nobody should send. */
export const hostileKey: fc.Arbitrary<string> = fc.constantFrom('__proto__', 'a\u0000', '\ud800', 'unknown_field', 'constructor', '');

/** Whole bodies that are not JSON of any shape a server expects. */
export const hostileRawBodies: readonly (string | Buffer)[] = [
  Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  '{"name":',
  '{"a":1,}',
  "{'a':1}",
  'null',
  '[]',
  '"just a string"',
  '',
  '\u0000',
  deepArrays,
  deepObjects,
];

/** A value that satisfies the schema as far as examples, enums and types tell. */
export function validValue(schema: JsonSchema | undefined): unknown {
  if (!schema) return 'fuzz';
  if (schema.example !== undefined) return schema.example;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.oneOf?.length) return validValue(schema.oneOf[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.properties) return Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, validValue(property)]));
  switch (type) {
    case 'string':
      return 'fuzz';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return schema.items?.properties ? [validValue(schema.items)] : [];
    case 'object':
      return {};
    default:
      return 'fuzz';
  }
}

export function objectText(valid: Record<string, unknown>, key: string, valueText: string): string {
  const entries = Object.entries(valid)
    .filter(([name]) => name !== key)
    .map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
  entries.push(`${JSON.stringify(key)}:${valueText}`);
  return `{${entries.join(',')}}`;
}

/**
 * JSON text of a value that follows `schema` everywhere but at one spot, which holds a hostile
 * value: the whole value, one property, an extra hostile key, or an item, down to three levels.
 */
export function hostileAt(schema: JsonSchema, depth = 0): fc.Arbitrary<string> {
  const spots: fc.Arbitrary<string>[] = [hostileJson];
  if (depth < 3) {
    const valid = validValue(schema);
    if (schema.properties && typeof valid === 'object' && valid !== null && !Array.isArray(valid)) {
      const base = valid as Record<string, unknown>;
      for (const [name, property] of Object.entries(schema.properties)) spots.push(hostileAt(property, depth + 1).map((value) => objectText(base, name, value)));
      spots.push(fc.tuple(hostileKey, hostileJson).map(([key, value]) => objectText(base, key, value)));
    } else if (schema.type === 'object') {
      spots.push(fc.tuple(fc.oneof(hostileKey, fc.constant('k')), hostileJson).map(([key, value]) => `{${JSON.stringify(key)}:${value}}`));
    }
    if (schema.items) spots.push(hostileAt(schema.items, depth + 1).map((value) => `[${value}]`));
  }
  return fc.oneof(...spots);
}

/** Percent-encodes text for a URL, lone surrogates as the UTF-8 bytes they would be (which no decoder accepts). */
export function encodeComponent(text: string): string {
  let encoded = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    encoded +=
      code >= 0xd800 && code <= 0xdfff
        ? `%${[0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => byte.toString(16).toUpperCase()).join('%')}`
        : encodeURIComponent(char);
  }
  return encoded;
}

/** A path segment, already encoded as it goes on the wire. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%00',
      'a%00b',
      '%ED%A0%80',
      '%ff',
      '%E0%A4%A',
      '..',
      '%2e%2e',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      'a%2Fb',
      '__proto__',
      'constructor',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      'm'.repeat(5000),
      '%20',
      '-1',
      '1e309',
      '%0d%0aX-Injected:%201',
    ),
  },
  { weight: 1, arbitrary: hostileText.map((text) => encodeComponent(text.slice(0, 2000))) },
);

/** Authorization headers that are not a credential of this suite. */
export const MALFORMED_AUTHORIZATION: readonly string[] = [
  'Bearer eyJhbGciOiJSUzI1NiJ9.bm90IGpzb257.AAAA',
  'Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOlsxXSwiYXVkIjp7fX0.AAAA',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
  'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.AAAA',
  'Bearer eyJ.eyJ.eyJ',
  'Bearer a.b.c',
  'Bearer ',
  'Bearer !!!',
  `Bearer ${'A'.repeat(8000)}`,
  'Basic YWRtaW46YWRtaW4=',
  'Bearer sk-arbor-not-a-key',
  'Bearer mcpk_not-a-key',
];

/** The path below a pass-through, already encoded: a way out of its base, or an ordinary one. */
export const passThroughPath: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(
        fc.constantFrom(
          '..',
          '%2e%2e',
          '.%2e',
          '%2e.',
          '%2E%2E',
          '%252e%252e',
          '%252E%252E',
          '.',
          '%2e',
          '',
          '..%2f',
          '%2e%2e%2f',
          '..%5c',
          '%5c..',
          '..\\..',
          '%c0%ae%c0%ae',
          '..;',
          '_fake',
          'requests',
          'v1',
          'files',
        ),
        { minLength: 1, maxLength: 6 },
      )
      .chain((segments) => fc.constantFrom('/', '\\', '%2f', '%5c').map((separator) => segments.join(separator))),
  },
  { weight: 1, arbitrary: fc.constantFrom('v1/models', 'v1/files', 'v1/messages', 'v1/chat/completions', '', '//', '///etc/passwd', '\\\\host\\share') },
  { weight: 1, arbitrary: hostileSegment },
);

/** A multipart body exactly as it goes on the wire, with the content type that announces it. */
export interface MultipartBody {
  contentType: string;
  body: Buffer;
}

const CRLF = '\r\n';

function part(boundary: string, headers: string[], content: string | Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}${CRLF}${headers.join(CRLF)}${CRLF}${CRLF}`, 'latin1'),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(CRLF),
  ]);
}

function form(
  boundary: string,
  fields: Record<string, string>,
  files: Record<string, { filename: string; contentType: string; content: string }>,
  override: { name?: string; filename?: string; value?: string; extraHeader?: string } = {},
): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(part(boundary, [`Content-Disposition: form-data; name="${name}"`], value));
  for (const [name, file] of Object.entries(files)) {
    const headers = [`Content-Disposition: form-data; name="${override.name ?? name}"; filename="${override.filename ?? file.filename}"`, `Content-Type: ${file.contentType}`];
    if (override.extraHeader !== undefined) headers.push(override.extraHeader);
    parts.push(part(boundary, headers, override.value ?? file.content));
  }
  return Buffer.concat([...parts, Buffer.from(`--${boundary}--${CRLF}`)]);
}

/**
 * Multipart bodies an upload route must refuse without falling over: hostile part headers (NUL in
 * a filename or field name, a header line without a colon, a 100 kB header), truncated bodies,
 * the wrong boundary, and hostile text in a field.
 */
const BOUNDARY = 'fuzzBoundary7MA4YWxk';

/** A well-formed multipart body of these fields and files. */
export function multipartForm(fields: Record<string, string>, files: Record<string, { filename: string; contentType: string; content: string }>): MultipartBody {
  return { contentType: `multipart/form-data; boundary=${BOUNDARY}`, body: form(BOUNDARY, fields, files) };
}

export function hostileMultipart(fields: Record<string, string>, files: Record<string, { filename: string; contentType: string; content: string }>): fc.Arbitrary<MultipartBody> {
  const boundary = BOUNDARY;
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const valid = form(boundary, fields, files);
  const header = (text: string) => Buffer.from(text, 'latin1');
  const fixed: MultipartBody[] = [
    { contentType, body: form(boundary, fields, files, { filename: 'a\u0000b.png' }) },
    { contentType, body: form(boundary, fields, files, { name: 'fi\u0000le' }) },
    { contentType, body: form(boundary, fields, files, { extraHeader: 'this header line has no colon' }) },
    { contentType, body: form(boundary, fields, files, { extraHeader: `X-Long: ${'h'.repeat(100_000)}` }) },
    { contentType, body: form(boundary, fields, files, { filename: 'f'.repeat(20_000) }) },
    { contentType, body: form(boundary, fields, files, { filename: '../../../../etc/passwd' }) },
    { contentType, body: form(boundary, fields, files, { name: '__proto__' }) },
    { contentType, body: Buffer.concat([header(`--${boundary}${CRLF}Content-Disposition: form-data; name="a\u0000"${CRLF}${CRLF}x${CRLF}`), header(`--${boundary}--${CRLF}`)]) },
    { contentType, body: header(`--${boundary}${CRLF}${CRLF}no disposition${CRLF}--${boundary}--${CRLF}`) },
    { contentType, body: header(`--${boundary}${CRLF}Content-Disposition: form-data; name="x"; filename="a${CRLF}`) },
    { contentType, body: valid.subarray(0, Math.floor(valid.length / 2)) },
    { contentType, body: valid.subarray(0, valid.length - 8) },
    { contentType, body: Buffer.alloc(0) },
    { contentType: 'multipart/form-data; boundary=someOtherBoundary', body: valid },
    { contentType: 'multipart/form-data', body: valid },
    { contentType: `multipart/form-data; boundary=${'b'.repeat(300)}`, body: valid },
    { contentType: 'multipart/form-data; boundary="', body: valid },
    { contentType: 'application/json', body: valid },
    { contentType, body: Buffer.from('{"model":"x"}') },
  ];
  const fieldNames = Object.keys(fields);
  const hostileField =
    fieldNames.length === 0
      ? fc.constant({ contentType, body: valid })
      : fc.tuple(fc.constantFrom(...fieldNames), hostileText).map(([name, value]) => ({ contentType, body: form(boundary, { ...fields, [name]: value }, files) }));
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...fixed) }, { weight: 2, arbitrary: hostileField }, { weight: 1, arbitrary: fc.constant({ contentType, body: valid }) });
}
