/**
 * The revision's custom headers from tool parameters (transports page, "Custom headers from tool
 * parameters"): a property of a tool's `inputSchema`, reached from the top through `properties`
 * only, may carry `x-mcp-header: "<Name>"`; a client then mirrors that argument of a `tools/call`
 * into the header `Mcp-Param-<Name>` (omitted for null or absent arguments), and a server rejects
 * a call whose headers and body disagree with 400 and HeaderMismatch (-32020).
 */

import { excerpt } from '@arbor/platform';

export interface ParamHeaderDeclaration {
  /** The argument's path from the top of `arguments`. */
  path: readonly string[];
  /** `<Name>` of `Mcp-Param-<Name>`, as the tool declares it. */
  name: string;
  type?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean', 'number']);
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const DECLARATIONS = new WeakMap<object, readonly ParamHeaderDeclaration[]>();

/** The `x-mcp-header` declarations of a tool's input schema (those a client can mirror), remembered per schema object. */
export function paramHeaderDeclarations(inputSchema: unknown): readonly ParamHeaderDeclaration[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  let found = DECLARATIONS.get(inputSchema);
  if (!found) {
    const declarations: ParamHeaderDeclaration[] = [];
    const visit = (schema: Record<string, unknown>, path: string[]) => {
      const name = schema['x-mcp-header'];
      const type = typeof schema['type'] === 'string' ? schema['type'] : undefined;
      if (path.length > 0 && typeof name === 'string' && TOKEN.test(name) && type !== undefined && PRIMITIVE_TYPES.has(type)) {
        declarations.push({ path, name, type });
      }
      const properties = schema['properties'];
      if (typeof properties !== 'object' || properties === null) return;
      for (const [key, child] of Object.entries(properties)) {
        if (typeof child === 'object' && child !== null) visit(child as Record<string, unknown>, [...path, key]);
      }
    };
    visit(inputSchema as Record<string, unknown>, []);
    found = declarations;
    DECLARATIONS.set(inputSchema, found);
  }
  return found;
}

/**
 * What is wrong with a call's `Mcp-Param-*` headers (`header(name)` gives a header's value by its
 * lower-cased name), if anything: a declared argument present in the body must come with its
 * header, and the header must decode to the argument's value.
 */
export function paramHeaderMismatch(declarations: readonly ParamHeaderDeclaration[], args: unknown, header: (lowerCaseName: string) => string | undefined): string | undefined {
  for (const declaration of declarations) {
    const value = valueAt(args, declaration.path);
    const text = primitiveText(value);
    if (text === undefined) continue;
    const headerName = `Mcp-Param-${declaration.name}`;
    const sent = header(headerName.toLowerCase());
    if (sent === undefined) return `the body carries ${declaration.path.join('.')} but the ${headerName} header is missing`;
    const decoded = decodeHeaderValue(sent.trim());
    if (decoded === undefined) return `the ${headerName} header carries an invalid Base64 value`;
    const same = typeof value === 'number' && CANONICAL_DECIMAL.test(decoded) ? Number(decoded) === value : decoded === text;
    if (!same) return `the ${headerName} header says ${excerpt(JSON.stringify(decoded))} but the body carries ${declaration.path.join('.')}=${excerpt(JSON.stringify(value))}`;
  }
  return undefined;
}

/** The `Mcp-Param-*` headers a client sends with a call of a tool with these declarations. */
export function paramHeaders(declarations: readonly ParamHeaderDeclaration[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const declaration of declarations) {
    const text = primitiveText(valueAt(args, declaration.path));
    if (text !== undefined) headers[`mcp-param-${declaration.name.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return headers;
}

/** A header value as the revision carries names and parameters: plain when it can be, `=?base64?…?=` otherwise. */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  return plain ? value : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * A header value as the revision encodes names and parameters: as written, or `=?base64?…?=`
 * around the Base64 of its UTF-8 bytes. Undefined when the Base64 is not canonical or not UTF-8.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX) || value.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.toString('base64') !== encoded) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A primitive argument as its header carries it; undefined for null, absent and non-primitive ones. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
