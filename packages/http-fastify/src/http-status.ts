// The code-to-status table is part of the wire contract; it lives in @calsync/wire.
export { HTTP_STATUS_BY_CODE } from '@calsync/wire';
