import { ApiProperty, ApiSchema } from './api-docs';
import { ERROR_CODES, type ErrorCode } from './error-codes';

// the codes in a file of their own, without @nestjs/swagger, for what imports them by path (the admin CLI)
export * from './error-codes';

/** What an error says: `error` of the one error object. */
export class ErrorDetail {
  @ApiProperty({ type: 'string', description: 'Broad class, such as `invalid_request_error` or `rate_limit_error`.' })
  type!: string;

  @ApiProperty({ enum: Object.values(ERROR_CODES), description: 'Stable code; clients branch on it. New codes may be added (handle them by HTTP status).' })
  code!: ErrorCode;

  @ApiProperty({ type: 'string', description: 'Human-readable; wording can change and must not be parsed.' })
  message!: string;

  @ApiProperty({ type: 'string', description: 'The offending request field, when there is one.', required: false })
  param?: string;

  @ApiProperty({ type: 'string', description: 'Link to the explanation of the code, anchored by code.', format: 'uri' })
  doc_url!: string;
}

@ApiSchema({ name: 'Error', description: 'The one error object every failure returns.' })
export class ErrorBody {
  @ApiProperty({ type: ErrorDetail })
  error!: ErrorDetail;
}
