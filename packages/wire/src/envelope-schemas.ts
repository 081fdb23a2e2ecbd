import { Type, type TSchema } from '@sinclair/typebox';

/** Wraps a `data` schema in the success envelope `{ success: true, data }` every JSON answer uses. */
export function envelopeSchema<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

/** The error envelope of every failure: a stable code, a human message and optional details. */
export const errorEnvelopeSchema = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Unknown()) }),
});
