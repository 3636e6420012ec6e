/** Where the reference page loads its renderer from, relative to the page (/api/v1/docs). */
export const REDOC_SCRIPT = 'docs/redoc.standalone.js';

/**
 * The reference page of /api/v1/docs: Redoc (the `redoc` package's standalone bundle, served by
 * this gateway: nothing is loaded from elsewhere) rendering openapi.json beside it, with its
 * search, the recorded examples and each operation's `x-codeSamples`. The page holds no script of
 * its own; Redoc reads its options from the element's attributes.
 */
export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lead Intelligence API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="${specUrl}" expand-responses="200,201,202" json-sample-expand-level="3"></redoc>
<script src="${REDOC_SCRIPT}"></script>
</body>
</html>
`;
}
