import { DOCS_PATH, ERROR_DOCS_PATH, OPENAPI_PATH } from './generator';

/** Exactly the three documentation routes, with or without a query string. */
export function isPublicDocsUrl(url: string): boolean {
  const path = url.split('?', 1)[0];
  return path === OPENAPI_PATH || path === DOCS_PATH || path === ERROR_DOCS_PATH;
}
