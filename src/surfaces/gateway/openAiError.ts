/**
 * Errors in OpenAI's JSON shape (`{ error: { message, type, param, code } }`).
 * Every failure the gateway reports goes through this one class so that
 * clients (the `openai` SDK, OpenClaw) can read status, type and code the
 * way they read them from api.openai.com.
 */

export const openAiErrorTypes = ['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'server_error'] as const;
export type OpenAiErrorType = (typeof openAiErrorTypes)[number];

export type OpenAiErrorBody = {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: string | null };
};

export class OpenAiError extends Error {
  constructor(
    readonly status: number,
    readonly type: OpenAiErrorType,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'OpenAiError';
  }

  toBody(): OpenAiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const badRequest = (message: string, param: string | null = null, code: string | null = null): OpenAiError =>
  new OpenAiError(400, 'invalid_request_error', message, code, param);

export const unauthorized = (message: string): OpenAiError => new OpenAiError(401, 'invalid_request_error', message, 'invalid_api_key');

export const forbiddenHost = (host: string): OpenAiError =>
  new OpenAiError(403, 'permission_error', `Host ${JSON.stringify(host)} is not allowed; use 127.0.0.1 or localhost.`, 'invalid_host');

export const notFound = (message: string, code: string | null = null, param: string | null = null): OpenAiError =>
  new OpenAiError(404, 'invalid_request_error', message, code, param);

export const methodNotAllowed = (method: string, path: string): OpenAiError =>
  new OpenAiError(405, 'invalid_request_error', `Method ${method} is not allowed on ${path}.`, 'method_not_allowed');

export const payloadTooLarge = (limitBytes: number): OpenAiError =>
  new OpenAiError(413, 'invalid_request_error', `Request body exceeds the limit of ${limitBytes} bytes.`, 'request_too_large');

export const serverError = (message: string, code: string | null = 'engine_error'): OpenAiError => new OpenAiError(500, 'server_error', message, code);

/** Anything thrown while handling a request becomes an OpenAiError; unknown errors are 500s. */
export function toOpenAiError(error: unknown): OpenAiError {
  if (error instanceof OpenAiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return serverError(`The server failed while handling the request: ${message}`, 'internal_error');
}
