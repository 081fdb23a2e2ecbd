import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { integerParamNames, readIntegerParams } from './integer-params.js';

const shared: Options = { useDefaults: true, removeAdditional: false, allErrors: true, addUsedSchema: false, coerceTypes: false };

/**
 * Fastify's validator compiler. Bodies are validated as sent (a `"5"` is not a number, a number is
 * not a version string). Path parameters and query values are always text: an integer property is
 * read by the one rule of `integer-params.ts` before the schema checks it (bounds included), so
 * `limit`, `afterId` and a conflict id are integers in the document and in the handler, and
 * `Infinity`, `0x10` or 400 digits are 400 VALIDATION_ERROR.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const ajv = addFormats.default(new Ajv(shared));
  return ({ schema, httpPart }) => {
    const validate = ajv.compile(schema as object);
    if (httpPart !== 'querystring' && httpPart !== 'params') return validate;
    const integers = integerParamNames(schema);
    const check = ((data: unknown) => {
      readIntegerParams(data, integers);
      const valid = validate(data);
      check.errors = validate.errors;
      return valid;
    }) as ValidateFunction;
    return check;
  };
}
