import { ERROR_CODES, ERROR_STATUS, ERROR_TYPE, ErrorCode, WEBHOOK_LIMITS } from '@app/contracts';

interface ErrorEntry {
  meaning: string;
  action: string;
  retry: string;
}

/** What each code means, what the caller does about it, whether a retry can succeed. Typed by code: a new code needs an entry. */
export const ERROR_CATALOGUE: Record<ErrorCode, ErrorEntry> = {
  invalid_request: {
    meaning:
      'A parameter is missing, has the wrong type or fails validation: an unknown body field or query parameter, a value out of range, ' +
      'a body that is not a JSON object sent as application/json, a character that cannot be stored (a NUL byte or an unpaired surrogate), ' +
      `an unknown Service-Version or a malformed Idempotency-Key; or a limit reached, such as the ${WEBHOOK_LIMITS.endpoints} webhook endpoints of a workspace. ` +
      '`param` names the field when one is at fault.',
    action: 'Correct the field named by `param` (see the endpoint in the API reference) and send the request again; for a limit, remove an object first.',
    retry: 'No: the same request fails again.',
  },
  authentication_failed: {
    meaning: 'The Authorization header is missing, not of the form `Bearer <API_KEY>`, or the key is unknown or revoked.',
    action: 'Send a current key as `Authorization: Bearer svc_live_…` or `svc_test_…`; keys are made in the application\'s API settings.',
    retry: 'No: not until the key is fixed.',
  },
  insufficient_credits: {
    meaning: 'The workspace has too few credits for a search page or a first reveal. Nothing was charged.',
    action: 'Buy a credit pack or wait for the plan credits to renew (GET /credits shows the balance and `period_ends_at`). Test keys never spend credits.',
    retry: 'Only after credits are added.',
  },
  permission_denied: {
    meaning: 'The workspace\'s plan lacks the API (it is part of the agency plan), the requested lens is not on the plan, or the key\'s member role may not do this (webhook endpoints need an owner or admin).',
    action: 'Upgrade the plan, use a lens of the plan, or use a key of an owner or admin.',
    retry: 'No: not until the plan or key changes.',
  },
  not_found: {
    meaning: 'No object with that ID exists in this workspace (objects of other workspaces and deleted objects included), or the URL names no endpoint.',
    action: 'Check the ID (IDs are opaque strings with a type prefix) and the URL against the API reference.',
    retry: 'No: the same request fails again.',
  },
  conflict: {
    meaning:
      'The request clashes with the current state: a lead with the same email exists (the message gives its ID), an Idempotency-Key was reused ' +
      'with a different request or its first request is still running, or another request changed the same tag or suppression at the same time.',
    action: 'For a duplicate, use the existing object. For an Idempotency-Key, send a new key for a new request, or wait and retry the same one.',
    retry: 'Yes for a request still in progress or a concurrent change (after a moment); no for a duplicate or a reused key.',
  },
  rate_limited: {
    meaning: 'More than 120 requests in one minute with this key (or, without a valid key, from this address). Nothing was charged or changed.',
    action: 'Wait the number of seconds in `Retry-After` (also `RateLimit-Reset`), then continue; spread requests over the minute.',
    retry: 'Yes, after `Retry-After` seconds.',
  },
  internal_error: {
    meaning: 'The request failed on the service side. No internal detail is returned; quote the `Request-Id` header when asking for help.',
    action: 'Retry with backoff. A POST is safe to retry with the same `Idempotency-Key`: it executes at most once.',
    retry: 'Yes, with backoff (and the same Idempotency-Key on POST).',
  },
  service_unavailable: {
    meaning:
      'The service or its database is not answering for the moment (a database failing over to its standby: seconds), so the request was not ' +
      'completed; or a feature is switched off on this installation because something it needs is not set up: the public opt-out portal answers ' +
      'it when no mail server is configured for its confirmation emails (or the one configured does not take the message). Nothing was recorded.',
    action:
      'Wait the number of seconds in `Retry-After`, then send the same request again (a POST with the same `Idempotency-Key`). For the portal, the ' +
      'operator of the installation configures the missing service (`OPTOUT_SMTP_URL`).',
    retry: 'Yes, after `Retry-After` seconds, with the same Idempotency-Key on POST; packages/client does so by itself.',
  },
};

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const inline = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/**
 * The page `error.doc_url` points at (/api/v1/docs/errors): one section per code, anchored by
 * the code, in the order of libs/contracts. Self-contained HTML, as the reference page.
 */
export function errorCataloguePage(): string {
  const sections = Object.values(ERROR_CODES).map((code) => {
    const entry = ERROR_CATALOGUE[code];
    return `<section id="${code}">
<h2><a href="#${code}"><code>${code}</code></a></h2>
<p class="muted">HTTP ${ERROR_STATUS[code]} · <code>error.type</code> <code>${ERROR_TYPE[code]}</code></p>
<dl><dt>What it means</dt><dd>${inline(entry.meaning)}</dd><dt>What to do</dt><dd>${inline(entry.action)}</dd><dt>Retry?</dt><dd>${inline(entry.retry)}</dd></dl>
</section>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lead Intelligence API errors</title>
<style>
body { margin:0 auto; max-width:860px; padding:24px; font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:#1d2330; }
section { border:1px solid #e3e6ee; border-radius:10px; margin:16px 0; padding:4px 20px 12px; }
section:target { border-color:#3451b2; }
h2 a { color:inherit; text-decoration:none; }
dt { font-weight:600; margin-top:8px; }
dd { margin:2px 0 0; }
code { font-family:ui-monospace,SFMono-Regular,Menlo,monospace; font-size:13px; }
.muted { color:#5b6478; }
</style>
</head>
<body>
<h1>Errors</h1>
<p>Every failure answers with one error object, <code>{"error": {"type", "code", "message", "param", "doc_url"}}</code>, and every response carries
<code>Request-Id</code>. Branch on <code>error.code</code>; the message may change. <code>param</code> names the offending field when there is one;
<code>doc_url</code> links the code's section below. Codes may be added; handle an unknown one by its HTTP status.
The full reference: <a href="../docs">API reference</a>, <a href="../openapi.json">OpenAPI document</a>.</p>
${sections.join('\n')}
</body>
</html>
`;
}
