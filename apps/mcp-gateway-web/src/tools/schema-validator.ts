import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { draftOf, rjsfErrors, withRootDefinitions } from './schema-errors';
import {
  createErrorHandler,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from '@rjsf/utils';

/**
 * rjsf's validator over @cfworker/json-schema, which interprets a schema instead of compiling it
 * to code as Ajv does: the UI's Content-Security-Policy allows no eval, and a tool's input schema
 * is only known when its page is open. In the dialect the schema names (2020-12, MCP's default, else).
 */
export class CspSafeValidator implements ValidatorType {
  private readonly validators = new WeakMap<object, Validator>();

  private validatorFor(schema: RJSFSchema, rootSchema?: RJSFSchema): Validator {
    const cached = this.validators.get(schema);
    if (cached && !rootSchema) return cached;
    const validator = new Validator(withRootDefinitions(schema, rootSchema) as Schema, draftOf(rootSchema ?? schema), false);
    if (!rootSchema) this.validators.set(schema, validator);
    return validator;
  }

  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: unknown): { errors?: Result[]; validationError?: Error } {
    try {
      const { errors } = this.validatorFor(schema).validate(formData);
      return { errors: errors as Result[] };
    } catch (error) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  }

  validateFormData(formData: unknown, schema: RJSFSchema, customValidate?: CustomValidator, transformErrors?: ErrorTransformer, uiSchema?: UiSchema): ValidationData<unknown> {
    const raw = this.rawValidation<OutputUnit>(schema, formData);
    let errors = raw.validationError
      ? [{ name: 'schema', message: `The tool's input schema cannot be checked: ${raw.validationError.message}`, stack: raw.validationError.message }]
      : rjsfErrors(raw.errors ?? []);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const data: ValidationData<unknown> = { errors, errorSchema: toErrorSchema(errors) };
    if (!customValidate) return data;
    return validationDataMerge(data, unwrapErrorHandler(customValidate(formData, createErrorHandler(formData), uiSchema, data.errorSchema)));
  }

  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    try {
      return this.validatorFor(schema, rootSchema).validate(formData).valid;
    } catch {
      return false;
    }
  }
}
