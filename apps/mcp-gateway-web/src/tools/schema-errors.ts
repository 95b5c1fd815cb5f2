import type { OutputUnit, SchemaDraft } from '@cfworker/json-schema';
import type { RJSFSchema, RJSFValidationError } from '@rjsf/utils';

/** Output units that only say a part below them failed: the part's own unit says how. */
const SUMMARIES = new Set(['properties', 'items', 'prefixItems', 'allOf', '$ref', '$dynamicRef', 'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas']);

/** `#/a/0/b` → `.a.0.b`, rjsf's property path. */
function propertyOf(instanceLocation: string): string {
  const path = instanceLocation.replace(/^#\/?/, '');
  return path === ''
    ? ''
    : `.${path
        .split('/')
        .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
        .join('.')}`;
}

/** cfworker's output units as rjsf's errors; a missing required property is the property's own error, so the form shows it at that field. */
export function rjsfErrors(units: readonly OutputUnit[]): RJSFValidationError[] {
  const leaves = units.some((unit) => !SUMMARIES.has(unit.keyword)) ? units.filter((unit) => !SUMMARIES.has(unit.keyword)) : units;
  return leaves.map((unit) => {
    const missing = unit.keyword === 'required' ? /required property "([^"]+)"/.exec(unit.error)?.[1] : undefined;
    const property = propertyOf(unit.instanceLocation) + (missing !== undefined ? `.${missing}` : '');
    const message = missing !== undefined ? 'is a required property' : unit.error;
    return { name: unit.keyword, property, message, schemaPath: unit.keywordLocation, stack: `${property || '.'} ${message}`.trim() };
  });
}

/** A part of a form's schema with the root's definitions beside it, so that its `$ref`s resolve. */
export function withRootDefinitions(schema: RJSFSchema, rootSchema?: RJSFSchema): RJSFSchema {
  if (!rootSchema || rootSchema === schema) return schema;
  return { ...schema, $defs: rootSchema['$defs'] as RJSFSchema['$defs'], definitions: rootSchema.definitions };
}

/** The dialect a schema names in `$schema` (SDKs write draft-07 for zod schemas), else 2020-12, MCP's default. */
export function draftOf(schema: RJSFSchema): SchemaDraft {
  const named = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (named.includes('draft-04')) return '4';
  if (named.includes('draft-07') || named.includes('draft-06')) return '7';
  if (named.includes('2019-09')) return '2019-09';
  return '2020-12';
}
