import { OPERATIONS, type OperationId } from '@calsync/wire';

/**
 * The OpenAPI head of a route's schema (operationId, summary, tag, bearer security) taken from the
 * wire's operations table, so routes, the document and the client SDK name operations alike.
 */
export function operation(id: OperationId) {
  const op = OPERATIONS[id];
  return {
    operationId: id,
    summary: op.summary,
    tags: [op.tag],
    ...(op.auth === 'bearer' ? { security: [{ bearerAuth: [] }] } : {}),
  };
}
