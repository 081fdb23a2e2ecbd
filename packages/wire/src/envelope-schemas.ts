import { ErrorCode } from '@calsync/domain/rules';
import { Type, type TSchema } from '@sinclair/typebox';

/**
 * A string enum: a union of literals, so TypeBox's own checker and the server's validator both
 * understand it (the document shows it as one `enum`, see the OpenAPI plugin).
 */
export function stringEnum<C extends string>(values: readonly C[], options: { title?: string; description?: string } = {}) {
  return Type.Union(values.map((v) => Type.Literal(v)), options);
}

/** Wraps a `data` schema in the success envelope `{ success: true, data }` every JSON answer uses. */
export function envelopeSchema<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

/** Every stable error code. */
export const ERROR_CODES = Object.values(ErrorCode);

/** The error envelope restricted to `codes`: what one route answers with one status. */
export function errorEnvelopeFor<C extends ErrorCode>(codes: readonly C[], options: { title?: string; description?: string } = {}) {
  return Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({
        code: stringEnum(codes),
        message: Type.String({ description: 'for people; never parse it' }),
        details: Type.Optional(Type.Unknown({ description: 'e.g. the failing paths of a VALIDATION_ERROR' })),
      }),
    },
    options,
  );
}

/** The error envelope of every failure: a stable code, a human message and optional details. */
export const errorEnvelopeSchema = errorEnvelopeFor(ERROR_CODES, { title: 'ErrorEnvelope' });
