/**
 * Generated from docs/openapi.json by openapi-typescript (npm run openapi:update). Do not edit.
 */

export interface paths {
    "/companies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List companies */
        get: operations["companies_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/companies/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a company */
        get: operations["companies_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve the credit balance
         * @description With the 20 most recent ledger entries. Plan credits are used before pack credits.
         */
        get: operations["credits_balance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Interactive API reference
         * @description This document rendered by Redoc: search, every operation with its recorded example and code samples (curl, the TypeScript client), the webhook events. No API key needed.
         */
        get: operations["docs_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/errors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Error catalogue
         * @description One section per error code, anchored by the code (`#not_found`): what it means, what to do, whether to retry. `error.doc_url` links here. No API key needed.
         */
        get: operations["docs_errorCodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/redoc.standalone.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The reference page's renderer
         * @description Redoc's standalone script, the version this gateway installs. No API key needed.
         */
        get: operations["docs_renderer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events
         * @description The events of the last 30 days in the key's mode (test keys: `livemode` false; live keys: true), newest first, each envelope as delivered, rendered with the workspace's default API version. `type` keeps one event type; `created[gte]` and `created[lte]` bound `created` (inclusive).
         */
        get: operations["events_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve an event
         * @description The envelope as delivered, rendered with the workspace's default API version. An event of the other mode, of another workspace or older than 30 days is 404.
         */
        get: operations["events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream events
         * @description The workspace's events in the key's mode as they are stored, as Server-Sent Events (`text/event-stream`), until the client disconnects: one SSE event per event, its `id` the event's id and its `data` the envelope exactly as `GET /events/{id}` answers it, in the order the events were stored. Lines starting with `:` are comments (a heartbeat at least every 15 seconds). `types` (event types separated by commas) keeps those types. Without `Last-Event-ID` the stream starts with the events stored from the moment of connecting; with it (the `id` of the last event received, as an EventSource sends it on reconnecting), every stored event after that one is sent first, then the new ones: none is missed or repeated. A `Last-Event-ID` that is no event of this workspace and mode in the last 30 days is 400. The request counts once toward the rate limit however long it stays open; a key may hold 10 streams open at once (429 beyond). The stream ends when the key is revoked, and when the gateway restarts: reconnect with `Last-Event-ID`.
         */
        get: operations["events_stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an export
         * @description Queues a background CSV or JSON export of leads (only revealed contact fields). Recorded in the audit log.
         */
        post: operations["exports_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve an export
         * @description `download_url` is set once status is `completed` and works for 24 hours.
         */
        get: operations["exports_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports/{id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an export file (signed link)
         * @description The `download_url` of a completed export. The signature is the credential: no API key is needed; rate limited per client address. An expired, altered or unknown link is 404.
         */
        get: operations["exports_download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/leads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List leads
         * @description Newest first. Entries carry no `sources`.
         */
        get: operations["leads_list"];
        put?: never;
        /**
         * Create a lead
         * @description Adds a lead the caller found; no credits charged. The email is checked against the workspace suppression list and the global opt-out list; suppressed addresses are saved but cannot be enrolled.
         */
        post: operations["leads_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/leads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a lead
         * @description With `sources`.
         */
        get: operations["leads_get"];
        put?: never;
        post?: never;
        /**
         * Delete a lead
         * @description Permanently deletes the lead, its notes, tasks and enrollments; active sequences stop for it.
         */
        delete: operations["leads_delete"];
        options?: never;
        head?: never;
        /**
         * Update a lead
         * @description Changes only the fields sent; emits `lead.updated`.
         */
        patch: operations["leads_update"];
        trace?: never;
    };
    "/leads/{id}/stage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Move a lead to a pipeline stage
         * @description Moves the lead to a stage ID taken from GET /pipelines; emits `lead.stage_changed`.
         */
        put: operations["leads_moveStage"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI document
         * @description Generated from the gateway's code. No API key needed.
         */
        get: operations["docs_openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/optout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Opt-out portal: request form
         * @description A page for recipients: enter an address, receive a confirmation link. No API key.
         */
        get: operations["optout_form"];
        put?: never;
        /**
         * Opt-out portal: send the confirmation link
         * @description Mails a confirmation link to the address (whether or not it can receive mail, the answer is the same). A refused address is 400: the form again, with the reason, to the HTML form; the error object to a JSON client. 503 `service_unavailable` when the installation has no mail server for the portal (or it does not answer): nothing is recorded. No API key.
         */
        post: operations["optout_request"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/optout/confirm/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Opt-out portal: confirmation page (the mailed link)
         * @description A page with one button; a GET changes nothing. No API key: the signed token is the credential.
         */
        get: operations["optout_confirmPage"];
        put?: never;
        /**
         * Opt-out portal: confirm
         * @description Adds a global suppression of the address: no workspace can email it. An expired or altered link is a 404 page; a 503 page with `Retry-After` when the service is not answering for the moment (nothing was changed, and the link still works). No API key.
         */
        post: operations["optout_confirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pipelines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pipelines
         * @description Every pipeline with its stages in order; stage IDs feed PUT /leads/{id}/stage.
         */
        get: operations["pipelines_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/postman_collection.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document as a Postman collection
         * @description A Postman collection (v2.1) generated from this document: a folder per tag, a request per operation with its recorded example. Import it by URL, then set the `apiKey` variable. No API key needed.
         */
        get: operations["docs_postmanCollection"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reveals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reveal a search result
         * @description Reveals email and phone for a search result, verifies the email and saves the result as a lead. Costs 1 credit; revealing an already-revealed entity is free (200, `already_revealed` true). If nothing verifiable is found the credit is refunded and `status` is `no_contact_found`.
         */
        post: operations["search_reveal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search a lens
         * @description Costs 1 credit per page on a live key (0 on a test key). 25 results a page, contact details masked.
         */
        get: operations["search_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sequences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sequences */
        get: operations["sequences_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sequences/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a sequence */
        get: operations["sequences_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sequences/{id}/enrollments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enroll leads in a sequence
         * @description Each lead is checked as in the application; leads that fail are listed in `skipped` with a reason. On a test key nothing is enrolled and the response shows what would happen. 201 even when some leads are skipped.
         */
        post: operations["sequences_enroll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sequences/{id}/enrollments/{lead_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Stop a sequence for one lead
         * @description The enrollment becomes `stopped` with stop_reason `removed`; the lead stays in the CRM.
         */
        delete: operations["sequences_unenroll"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List suppressions
         * @description Workspace and global entries.
         */
        get: operations["suppressions_list"];
        put?: never;
        /**
         * Create a suppression
         * @description Send exactly one of `email` and `domain`. Takes effect immediately: queued emails are cancelled and active enrollments stop. Emits `unsubscribe.created` when `reason` is `unsubscribe`.
         */
        post: operations["suppressions_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tasks */
        get: operations["tasks_list"];
        put?: never;
        /**
         * Create a task
         * @description Tasks with a due date show on the assignee's home screen.
         */
        post: operations["tasks_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a task
         * @description `status` `done` completes the task and sets `completed_at`.
         */
        patch: operations["tasks_update"];
        trace?: never;
    };
    "/unsubscribe/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Unsubscribe page (email footer link)
         * @description The signed token of an email is the credential: no API key. Shows a page with one button; a GET changes nothing.
         */
        get: operations["unsubscribe_show"];
        put?: never;
        /**
         * Unsubscribe (RFC 8058 one-click and the page button)
         * @description Creates a workspace suppression with reason `unsubscribe` for the recipient of the email. No API key: the signed token is the credential.
         */
        post: operations["unsubscribe_unsubscribe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook_endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description Secrets are never returned.
         */
        get: operations["webhookEndpoints_list"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description The response carries `secret`, which cannot be retrieved again. A workspace has at most 16 endpoints (live and test keys' together): another is 400 `invalid_request` until one is deleted. `url` must reach a public address: a literal private, loopback, link-local or other special-purpose address is 400 `invalid_request` on `url`.
         */
        post: operations["webhookEndpoints_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook_endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a webhook endpoint
         * @description The secret is never returned.
         */
        get: operations["webhookEndpoints_get"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Stops deliveries immediately; deliveries in retry are dropped.
         */
        delete: operations["webhookEndpoints_delete"];
        options?: never;
        head?: never;
        /**
         * Update a webhook endpoint
         * @description Changes only the fields sent. `status` `disabled` stops deliveries and drops pending retries; `enabled` switches a disabled endpoint back on with its failure count restarted (new events only).
         */
        patch: operations["webhookEndpoints_update"];
        trace?: never;
    };
    "/webhook_endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a webhook endpoint's deliveries
         * @description Newest first: each event sent to the endpoint with its type, every attempt (status code or error, latency), the next attempt while pending, and the final state.
         */
        get: operations["webhookEndpoints_deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook_endpoints/{id}/deliveries/{delivery_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description Sent again at once, whatever its state, as its next attempt: the same body and event `id`, signed anew. 409 when the endpoint is disabled.
         */
        post: operations["webhookEndpoints_retryDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook_endpoints/{id}/secret/roll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Roll a webhook endpoint's signing secret
         * @description Returns a new `secret`, which cannot be retrieved again. Until `previous_secret_expires_at` (24 hours by default) each delivery carries two `v1` signatures in `Service-Signature`, one per secret.
         */
        post: operations["webhookEndpoints_rollSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook_endpoints/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a sample event to a webhook endpoint
         * @description Sends a sample event of `type` to this endpoint at once, whatever types it subscribes to: a new `evt_` id, `livemode` false and `"sample": true`, with sample `data`, signed as every delivery. Answers the delivery (pending); its attempts appear in the endpoint's deliveries. A sample that fails is retried once, about a minute later, and no more. Sample events are not listed by GET /events. 409 when the endpoint is disabled.
         */
        post: operations["webhookEndpoints_sendTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    event: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An event delivered to a webhook endpoint
         * @description Sent to each enabled endpoint subscribed to the event type (or to `*`). Any 2xx within 10 seconds is success; failures are retried about 1 min, 5 min, 30 min, 2 h, 6 h and 15 h later. Events may arrive twice (dedupe on `id`) and out of order. Verify `Service-Signature`: `t=<unix_seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whole whsec_ secret>`, rejecting a `t` more than 300 seconds from your clock.
         */
        post: operations["webhook_event"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "lead.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event lead.created
         * @description A lead is added by a reveal, an import, the application or the API. `data.object` is a Lead. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_lead_created"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "lead.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event lead.updated
         * @description Lead fields change; `data.previous_attributes` holds the old values of the fields that changed. `data.object` is a Lead; `data.previous_attributes` holds the old values. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_lead_updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "lead.stage_changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event lead.stage_changed
         * @description A lead moves to another pipeline stage. `data.object` is a LeadStageChange. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_lead_stage_changed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "reveal.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event reveal.completed
         * @description A reveal finishes, including refunded ones with status `no_contact_found`. `data.object` is a Reveal. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_reveal_completed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.sent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event email.sent
         * @description A sequence step or an inbox reply leaves a mailbox. `data.object` is a EmailMessage. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_email_sent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.replied": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event email.replied
         * @description A reply is detected (direction `inbound`); the sequence stops for that lead; out-of-office replies do not count. `data.object` is a EmailMessage. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_email_replied"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.bounced": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event email.bounced
         * @description A hard bounce (direction `outbound`, `snippet` carries the bounce text); the address is marked invalid and suppressed; five percent bounces pause the sequence. `data.object` is a EmailMessage. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_email_bounced"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "sequence.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event sequence.completed
         * @description A lead reaches the end of a sequence without replying (enrollment status `completed`, `stop_reason` null). `data.object` is a Enrollment. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_sequence_completed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "unsubscribe.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event unsubscribe.created
         * @description A recipient unsubscribes (one-click header, footer link or reply), opts out through the public portal, or a suppression with reason `unsubscribe` is created through the API. `data.object` is a Suppression. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_unsubscribe_created"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credits.low": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Event credits.low
         * @description The total balance drops below 10% of the plan's monthly credits; once per period. `data.object` is a CreditBalance. Delivered, signed and retried as the `event` webhook describes.
         */
        post: operations["webhook_credits_low"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description The one error object every failure returns. */
        Error: {
            error: {
                /** @description Broad class, such as `invalid_request_error` or `rate_limit_error`. */
                type: string;
                /**
                 * @description Stable code; clients branch on it. New codes may be added (handle them by HTTP status).
                 * @enum {string}
                 */
                code: "invalid_request" | "authentication_failed" | "insufficient_credits" | "permission_denied" | "not_found" | "conflict" | "rate_limited" | "internal_error" | "service_unavailable";
                /** @description Human-readable; wording can change and must not be parsed. */
                message: string;
                /** @description The offending request field, when there is one. */
                param?: string;
                /**
                 * Format: uri
                 * @description Link to the explanation of the code, anchored by code.
                 */
                doc_url: string;
            };
        };
        /** @description Deletion envelope. */
        DeletedObject: {
            /** @description ID of the deleted object. */
            id: string;
            /** @description Type of the deleted object. */
            object: string;
            /** @constant */
            deleted: true;
        };
        /** @description Provenance record of a contact field. */
        Source: {
            /** @description The field this record backs (for example email, title, organization). */
            field: string;
            /** @description Value as found at the source. */
            value: string;
            /**
             * Format: uri
             * @description Public URL where found.
             */
            source_url: string;
            /** @enum {string} */
            provider: "crawler" | "sec_edgar" | "openalex" | "orcid" | "crossref" | "nih_reporter" | "nsf_awards" | "grants_gov" | "google_places" | "serpapi" | "opencorporates" | "import" | "api" | "manual";
            /**
             * Format: date-time
             * @description When fetched.
             */
            fetched_at: string;
        };
        SearchHit: {
            /**
             * @description Identifier, prefix `ent_`; opaque, up to 255 characters.
             * @example ent_2x8Kq3vNw9
             */
            entity_id: string;
            /** @enum {string} */
            lens: "leads" | "investors" | "researchers" | "grants";
            /** @description Organization, grant program or person name. */
            name: string;
            /** @description Contact person when the hit is an organization with a known contact. */
            person_name?: string | null;
            /** @description Contact's role. */
            title?: string | null;
            /** @description Organization, fund, institution or agency. */
            organization?: string | null;
            /** @description City, region and country. */
            location?: string | null;
            /** @description Masked email; null if no email is known yet. */
            email_masked: string | null;
            /**
             * @description Null until the email is revealed and checked.
             * @enum {string|null}
             */
            email_status?: "valid" | "invalid" | "catch_all" | "risky" | "unknown" | null;
            phone_masked?: string | null;
            /** @description Whether this workspace already revealed the entity. Revealing again is free. */
            revealed: boolean;
            /** @description 0 to 100. Investors lens: fit against the opportunity profile; null in other lenses. */
            match_score?: number | null;
            /** @description Lens-specific fields. */
            details: {
                [key: string]: unknown;
            };
            sources: components["schemas"]["Source"][];
        };
        SearchResults: {
            /** @constant */
            object: "search_results";
            /** @enum {string} */
            lens: "leads" | "investors" | "researchers" | "grants";
            /** @description The query sent. */
            query: string;
            page: number;
            /**
             * @description Always 25.
             * @constant
             */
            per_page: 25;
            /** @description Another page exists. */
            has_more: boolean;
            /** @description 1 on a live key, 0 on a test key. */
            credits_charged: number;
            /** @description False when produced by a test key. */
            livemode: boolean;
            /** @description Contact details masked. */
            data: components["schemas"]["SearchHit"][];
        };
        Reveal: {
            /**
             * @description Identifier, prefix `rev_`; opaque, up to 255 characters.
             * @example rev_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "reveal";
            /** @description The revealed entity. */
            entity_id: string;
            /** @description Lead created or updated; null for test-key dry runs. */
            lead_id: string | null;
            /**
             * @description `revealed` (details returned), `no_contact_found` (credit refunded), `dry_run` (test key).
             * @enum {string}
             */
            status: "revealed" | "no_contact_found" | "dry_run";
            email: string | null;
            /** @enum {string|null} */
            email_status?: "valid" | "invalid" | "catch_all" | "risky" | "unknown" | null;
            /** @description 0 to 100. */
            email_confidence?: number | null;
            /** @description E.164. */
            phone?: string | null;
            /** @description Net credits charged, 0 to 1. */
            credits_charged: number;
            /** @description True when the workspace had already revealed the entity. */
            already_revealed: boolean;
            /** @description False when produced by a test key. */
            livemode: boolean;
            sources: components["schemas"]["Source"][];
            /**
             * Format: date-time
             * @description When the reveal happened.
             */
            created_at: string;
        };
        StageRef: {
            pipeline_id: string;
            stage_id: string;
            name: string;
        };
        Lead: {
            /**
             * @description Identifier, prefix `lead_`; opaque, up to 255 characters.
             * @example lead_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "lead";
            /** @enum {string} */
            lens: "leads" | "investors" | "researchers" | "grants";
            first_name?: string | null;
            last_name?: string | null;
            /** @description Display name; for organizations the organization name. */
            full_name: string;
            /** @description Job title or role. */
            title?: string | null;
            /**
             * Format: email
             * @description Null until revealed.
             */
            email: string | null;
            /**
             * @description Null until revealed and checked.
             * @enum {string|null}
             */
            email_status: "valid" | "invalid" | "catch_all" | "risky" | "unknown" | null;
            /** @description 0 to 100. */
            email_confidence?: number | null;
            /** @description E.164. */
            phone?: string | null;
            /** Format: uri */
            website?: string | null;
            /** @description Prefix `co_`. */
            company_id?: string | null;
            company_name?: string | null;
            /** @description ISO 3166-1 alpha-2; drives per-country sending rules. */
            country?: string | null;
            /** @description Whether contact details were revealed in this workspace. */
            revealed: boolean;
            /**
             * @description GDPR basis.
             * @enum {string}
             */
            lawful_basis: "legitimate_interest" | "consent" | "contract";
            /** @description Owning workspace member. */
            owner_id?: string | null;
            /** @description Tag names. */
            tags: string[];
            stage: components["schemas"]["StageRef"] | null;
            /** @description Values keyed by custom field key. */
            custom_fields?: {
                [key: string]: string | number | boolean;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description Provenance for every stored field. Present on a single lead; absent from list entries. */
            sources?: components["schemas"]["Source"][];
        };
        Company: {
            /**
             * @description Identifier, prefix `co_`; opaque, up to 255 characters.
             * @example co_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "company";
            name: string;
            /** @description Primary domain. */
            domain: string | null;
            /** @description Industry key. */
            industry?: string | null;
            /**
             * @description Employee range.
             * @enum {string|null}
             */
            size?: "1-10" | "11-50" | "51-200" | "201-500" | "501-1000" | "1001+" | null;
            /** @description ISO country code. */
            country?: string | null;
            city?: string | null;
            /** @description Short description from the company's own site. */
            description?: string | null;
            /** @description Leads linked to it in the workspace. */
            lead_count: number;
            sources: components["schemas"]["Source"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        Stage: {
            /**
             * @description Identifier, prefix `st_`; opaque, up to 255 characters.
             * @example st_2x8Kq3vNw9
             */
            id: string;
            name: string;
            /** @description Zero-based. */
            position: number;
            /**
             * @description `won` and `lost` close the deal.
             * @enum {string}
             */
            kind: "open" | "won" | "lost";
        };
        Pipeline: {
            /**
             * @description Identifier, prefix `pl_`; opaque, up to 255 characters.
             * @example pl_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "pipeline";
            name: string;
            /**
             * @description Lens the template was made for.
             * @enum {string|null}
             */
            lens?: "leads" | "investors" | "researchers" | "grants" | null;
            /** @description Whether new leads land here. */
            is_default: boolean;
            /** @description In order. */
            stages: components["schemas"]["Stage"][];
            /** Format: date-time */
            created_at: string;
        };
        Task: {
            /**
             * @description Identifier, prefix `task_`; opaque, up to 255 characters.
             * @example task_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "task";
            title: string;
            lead_id: string | null;
            assignee_id: string | null;
            /** @enum {string} */
            status: "open" | "done";
            /** Format: date-time */
            due_at: string | null;
            /**
             * Format: date-time
             * @description When marked done.
             */
            completed_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        SequenceStep: {
            /** @description 1-based. */
            position: number;
            /** @enum {string} */
            type: "email" | "wait";
            /** @description Subject line with merge tags, for email steps; a merge tag may carry a fallback after a pipe. */
            subject: string | null;
            /** @description For wait steps. */
            wait_days: number | null;
        };
        Sequence: {
            /**
             * @description Identifier, prefix `seq_`; opaque, up to 255 characters.
             * @example seq_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "sequence";
            name: string;
            /**
             * @description Template lens.
             * @enum {string|null}
             */
            lens?: "leads" | "investors" | "researchers" | "grants" | null;
            /**
             * @description Only `active` sequences send.
             * @enum {string}
             */
            status: "draft" | "active" | "paused" | "completed";
            /** @description Mailboxes it rotates through. */
            mailbox_ids: string[];
            /** @description Whether waits count business days only. */
            business_days_only: boolean;
            /** @description In order. */
            steps: components["schemas"]["SequenceStep"][];
            stats: {
                enrolled: number;
                active: number;
                sent: number;
                replied: number;
                bounced: number;
                unsubscribed: number;
            };
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When first launched.
             */
            launched_at: string | null;
        };
        Enrollment: {
            /**
             * @description Identifier, prefix `enr_`; opaque, up to 255 characters.
             * @example enr_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "enrollment";
            sequence_id: string;
            lead_id: string;
            /** @enum {string} */
            status: "active" | "paused" | "completed" | "stopped";
            /** @description Position of the next step to run. */
            current_step: number;
            /**
             * Format: date-time
             * @description When the next email is scheduled.
             */
            next_send_at: string | null;
            /** Format: date-time */
            enrolled_at: string;
            /** Format: date-time */
            stopped_at: string | null;
            /** @enum {string|null} */
            stop_reason: "replied" | "bounced" | "unsubscribed" | "removed" | "suppressed" | null;
        };
        EnrollmentResult: {
            /** @constant */
            object: "enrollment_result";
            /** @description False when produced by a test key. */
            livemode: boolean;
            enrolled: components["schemas"]["Enrollment"][];
            skipped: {
                lead_id: string;
                /**
                 * @description New values may be added.
                 * @enum {string}
                 */
                reason: "already_enrolled" | "suppressed" | "no_email" | "email_invalid" | "country_blocked" | "not_found";
            }[];
        };
        Suppression: {
            /**
             * @description Identifier, prefix `sup_`; opaque, up to 255 characters.
             * @example sup_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "suppression";
            /** @enum {string} */
            type: "email" | "domain";
            /** @description The address or domain. */
            value: string;
            /** @enum {string} */
            reason: "unsubscribe" | "bounce" | "complaint" | "opt_out" | "manual";
            /**
             * @description `global` entries come from the public opt-out portal and apply to every workspace.
             * @enum {string}
             */
            scope: "workspace" | "global";
            /** Format: date-time */
            created_at: string;
        };
        LedgerEntry: {
            /**
             * @description Identifier, prefix `cl_`; opaque, up to 255 characters.
             * @example cl_2x8Kq3vNw9
             */
            id: string;
            /** @enum {string} */
            type: "grant" | "purchase" | "consume" | "refund" | "expire";
            /** @description Signed; negative for consumption and expiry. */
            amount: number;
            /** @description Cause, for example search_page, reveal, reveal_failed, plan_renewal, pack_2000. */
            reason: string;
            /** @description Related object ID such as a reveal or a payment invoice. */
            ref: string | null;
            /** @enum {string} */
            pool: "plan" | "pack";
            /** Format: date-time */
            created_at: string;
        };
        CreditBalance: {
            /** @constant */
            object: "credit_balance";
            /** @enum {string} */
            plan: "free" | "starter" | "growth" | "agency";
            balance: {
                /** @description Plan credits left this period; used first, reset at renewal. */
                plan: number;
                /** @description Pack credits; never expire, used after plan credits. */
                pack: number;
                /** @description plan + pack. */
                total: number;
            };
            /**
             * Format: date-time
             * @description When plan credits renew.
             */
            period_ends_at: string | null;
            /** @description The 20 most recent entries, newest first. */
            ledger: components["schemas"]["LedgerEntry"][];
        };
        WebhookEndpoint: {
            /**
             * @description Identifier, prefix `we_`; opaque, up to 255 characters.
             * @example we_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "webhook_endpoint";
            /**
             * Format: uri
             * @description HTTPS URL receiving events.
             */
            url: string;
            description: string | null;
            /** @description Subscribed event types; `*` means all. */
            events: string[];
            /**
             * @description Disabled endpoints receive nothing.
             * @enum {string}
             */
            status: "enabled" | "disabled";
            /** Format: date-time */
            created_at: string;
        };
        WebhookEndpointWithSecret: components["schemas"]["WebhookEndpoint"] & {
            /** @description Signing secret, prefix `whsec_`; returned only at creation. */
            secret: string;
        };
        WebhookEndpointWithRolledSecret: components["schemas"]["WebhookEndpointWithSecret"] & {
            /**
             * Format: date-time
             * @description Until then deliveries are signed with the previous secret too (a second `v1` in `Service-Signature`).
             */
            previous_secret_expires_at: string;
        };
        WebhookDeliveryAttempt: {
            /** @description 1 for the first attempt; a retry asked for through the API continues the count. */
            attempt: number;
            /** Format: date-time */
            attempted_at: string;
            /**
             * @description `succeeded`: a 2xx within 10 seconds.
             * @enum {string}
             */
            outcome: "succeeded" | "failed";
            /** @description The HTTP status answered; null for a time-out, a connection error or a refused address. */
            status_code: number | null;
            /** @description Why the attempt failed (`HTTP 500`, a time-out, a connection error, a refused address); null when it succeeded. */
            error: string | null;
            /** @description Milliseconds from sending to the answer (or the failure). */
            latency_ms: number;
        };
        WebhookDelivery: {
            /**
             * @description Identifier, prefix `whd_`; opaque, up to 255 characters.
             * @example whd_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "webhook_delivery";
            /** @description Prefix `we_`. */
            endpoint_id: string;
            /** @description The event delivered (the envelope's `id`, prefix `evt_`). */
            event_id: string;
            /**
             * @description The event's type.
             * @example lead.created
             */
            event_type: string;
            /**
             * @description `pending` until an attempt succeeds (`succeeded`) or the last retry fails (`failed`); `dropped` when its endpoint was disabled.
             * @enum {string}
             */
            status: "pending" | "succeeded" | "failed" | "dropped";
            /** @description Oldest first; empty until the first attempt is recorded. */
            attempts: components["schemas"]["WebhookDeliveryAttempt"][];
            /**
             * Format: date-time
             * @description When the next attempt is due, while `pending`; null otherwise.
             */
            next_attempt_at: string | null;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When it ended as `succeeded`, `failed` or `dropped`; null while `pending`.
             */
            completed_at: string | null;
        };
        /** @description Every field optional; an empty filter exports every lead. */
        ExportFilter: {
            /** @enum {string} */
            lens?: "leads" | "investors" | "researchers" | "grants";
            tag?: string;
            pipeline_id?: string;
            stage_id?: string;
            /** @description Members of a list of the workspace (lists are made in the application); an unknown list or another workspace's matches no lead. */
            list_id?: string;
            /** Format: date-time */
            updated_since?: string;
        };
        Export: {
            /**
             * @description Identifier, prefix `exp_`; opaque, up to 255 characters.
             * @example exp_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "export";
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed";
            /** @enum {string} */
            format: "csv" | "json";
            filter: components["schemas"]["ExportFilter"];
            /** @description Rows once completed. */
            row_count: number | null;
            /**
             * Format: uri
             * @description Signed, set once completed, valid 24 hours.
             */
            download_url: string | null;
            /**
             * Format: date-time
             * @description When download_url stops working.
             */
            expires_at: string | null;
            /** @description False when produced by a test key. */
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            completed_at: string | null;
        };
        EmailMessage: {
            /**
             * @description Identifier, prefix `msg_`; opaque, up to 255 characters.
             * @example msg_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object?: "email_message";
            lead_id: string;
            /** @description Sequence that sent it. */
            sequence_id: string | null;
            mailbox_id: string;
            /** @enum {string} */
            direction: "outbound" | "inbound";
            from: string;
            to: string;
            subject: string;
            /** @description First 200 characters of the plain-text body. */
            snippet: string;
            /**
             * Format: date-time
             * @description When sent or received.
             */
            sent_at: string;
        };
        /** @description Envelope of a webhook event delivery. */
        Event: {
            /**
             * @description Identifier, prefix `evt_`; opaque, up to 255 characters.
             * @example evt_2x8Kq3vNw9
             */
            id: string;
            /** @constant */
            object: "event";
            /**
             * @description One of the event types; new types may be added.
             * @example lead.created
             * @example lead.updated
             * @example lead.stage_changed
             * @example reveal.completed
             * @example email.sent
             * @example email.replied
             * @example email.bounced
             * @example sequence.completed
             * @example unsubscribe.created
             * @example credits.low
             */
            type: string;
            /**
             * Format: date
             * @description The version pinned on the endpoint at creation; read through GET /events, the workspace's default version.
             */
            api_version: string;
            /** Format: date-time */
            created: string;
            /** @description Prefix `ws_`. */
            workspace_id: string;
            /** @description False when produced by a test key. */
            livemode: boolean;
            /**
             * @description Present (true) only on a sample event sent by POST /webhook_endpoints/{id}/test: nothing happened, and its `livemode` is false.
             * @constant
             */
            sample?: true;
            data: {
                /** @description The resource, rendered with `api_version`: Lead (lead.*), Reveal, EmailMessage (email.*), Enrollment (sequence.completed), Suppression (unsubscribe.created) or CreditBalance (credits.low). */
                object: components["schemas"]["Lead"] | components["schemas"]["Reveal"] | components["schemas"]["EmailMessage"] | components["schemas"]["Enrollment"] | components["schemas"]["Suppression"] | components["schemas"]["CreditBalance"] | {
                    [key: string]: unknown;
                };
                /** @description Old values, for `lead.updated`. */
                previous_attributes?: {
                    [key: string]: unknown;
                };
            };
        };
        CreateLeadDto: {
            /** @enum {string|null} */
            lens?: "leads" | "investors" | "researchers" | "grants" | null;
            first_name?: string | null;
            last_name?: string | null;
            /** @description Required when first_name and last_name are empty. */
            full_name?: string;
            title?: string | null;
            /** Format: email */
            email?: string | null;
            phone?: string | null;
            /** Format: uri */
            website?: string | null;
            company_name?: string | null;
            company_domain?: string | null;
            /** @description ISO 3166-1 alpha-2 country code. */
            country?: string | null;
            /** @enum {string|null} */
            lawful_basis?: "legitimate_interest" | "consent" | "contract" | null;
            /** Format: uri */
            source_url?: string | null;
            tags?: string[] | null;
            /** @description Values keyed by custom field key: strings (up to 1000 characters), numbers or booleans. */
            custom_fields?: {
                [key: string]: string | number | boolean | null;
            } | null;
        };
        UpdateLeadDto: {
            first_name?: string;
            last_name?: string;
            title?: string;
            phone?: string | null;
            /** Format: uri */
            website?: string | null;
            /** @description ISO 3166-1 alpha-2 country code. */
            country?: string | null;
            /** @enum {string} */
            lawful_basis?: "legitimate_interest" | "consent" | "contract";
            owner_id?: string | null;
            /** @description Values keyed by custom field key: strings (up to 1000 characters), numbers or booleans. */
            custom_fields?: {
                [key: string]: string | number | boolean | null;
            };
        };
        MoveStageDto: {
            stage_id: string;
        };
        CreateTaskDto: {
            title: string;
            lead_id?: string;
            assignee_id?: string;
            /** Format: date-time */
            due_at?: string;
        };
        UpdateTaskDto: {
            title?: string;
            /** @enum {string} */
            status?: "open" | "done";
            /** Format: date-time */
            due_at?: string | null;
            assignee_id?: string | null;
        };
        CreateExportDto: {
            /** @enum {string} */
            format: "csv" | "json";
            filter?: components["schemas"]["ExportFilterDto"];
        };
        ExportFilterDto: {
            /** @enum {string} */
            lens?: "leads" | "investors" | "researchers" | "grants";
            tag?: string;
            pipeline_id?: string;
            stage_id?: string;
            list_id?: string;
            /** Format: date-time */
            updated_since?: string;
        };
        CreateEnrollmentsDto: {
            lead_ids: string[];
        };
        CreateSuppressionDto: {
            /** Format: email */
            email?: string | null;
            domain?: string | null;
            /** @enum {string|null} */
            reason?: "unsubscribe" | "complaint" | "manual" | null;
        };
        CreateWebhookEndpointDto: {
            url: string;
            events: ("lead.created" | "lead.updated" | "lead.stage_changed" | "reveal.completed" | "email.sent" | "email.replied" | "email.bounced" | "sequence.completed" | "unsubscribe.created" | "credits.low" | "*")[];
            description?: string | null;
        };
        UpdateWebhookEndpointDto: {
            url?: string;
            events?: ("lead.created" | "lead.updated" | "lead.stage_changed" | "reveal.completed" | "email.sent" | "email.replied" | "email.bounced" | "sequence.completed" | "unsubscribe.created" | "credits.low" | "*")[];
            description?: string | null;
            /** @enum {string} */
            status?: "enabled" | "disabled";
        };
        TestWebhookEndpointDto: {
            /** @enum {string} */
            type: "lead.created" | "lead.updated" | "lead.stage_changed" | "reveal.completed" | "email.sent" | "email.replied" | "email.bounced" | "sequence.completed" | "unsubscribe.created" | "credits.low";
        };
        /** @description `data.object` of `lead.stage_changed`: the move of one lead between stages. */
        LeadStageChange: {
            /** @constant */
            object: "lead_stage_change";
            /** @description Prefix `lead_`. */
            lead_id: string;
            /** @description The pipeline of the new stage; prefix `pl_`. */
            pipeline_id: string;
            /** @description Where the lead was; null when it had no stage. */
            from_stage: components["schemas"]["StageRef"] | null;
            /** @description Where the lead is now. */
            to_stage: components["schemas"]["StageRef"] | null;
            /** Format: date-time */
            changed_at: string;
        };
        /** @description The `lead.created` event: A lead is added by a reveal, an import, the application or the API. */
        LeadCreatedEvent: {
            /** @constant */
            type?: "lead.created";
            data?: {
                object: components["schemas"]["Lead"];
            };
        } & components["schemas"]["Event"];
        /** @description The `lead.updated` event: Lead fields change; `data.previous_attributes` holds the old values of the fields that changed. */
        LeadUpdatedEvent: {
            /** @constant */
            type?: "lead.updated";
            data?: {
                object: components["schemas"]["Lead"];
                /** @description The old values of the fields that changed, by field name. */
                previous_attributes: {
                    [key: string]: unknown;
                };
            };
        } & components["schemas"]["Event"];
        /** @description The `lead.stage_changed` event: A lead moves to another pipeline stage. */
        LeadStageChangedEvent: {
            /** @constant */
            type?: "lead.stage_changed";
            data?: {
                object: components["schemas"]["LeadStageChange"];
            };
        } & components["schemas"]["Event"];
        /** @description The `reveal.completed` event: A reveal finishes, including refunded ones with status `no_contact_found`. */
        RevealCompletedEvent: {
            /** @constant */
            type?: "reveal.completed";
            data?: {
                object: components["schemas"]["Reveal"];
            };
        } & components["schemas"]["Event"];
        /** @description The `email.sent` event: A sequence step or an inbox reply leaves a mailbox. */
        EmailSentEvent: {
            /** @constant */
            type?: "email.sent";
            data?: {
                object: components["schemas"]["EmailMessage"];
            };
        } & components["schemas"]["Event"];
        /** @description The `email.replied` event: A reply is detected (direction `inbound`); the sequence stops for that lead; out-of-office replies do not count. */
        EmailRepliedEvent: {
            /** @constant */
            type?: "email.replied";
            data?: {
                object: components["schemas"]["EmailMessage"];
            };
        } & components["schemas"]["Event"];
        /** @description The `email.bounced` event: A hard bounce (direction `outbound`, `snippet` carries the bounce text); the address is marked invalid and suppressed; five percent bounces pause the sequence. */
        EmailBouncedEvent: {
            /** @constant */
            type?: "email.bounced";
            data?: {
                object: components["schemas"]["EmailMessage"];
            };
        } & components["schemas"]["Event"];
        /** @description The `sequence.completed` event: A lead reaches the end of a sequence without replying (enrollment status `completed`, `stop_reason` null). */
        SequenceCompletedEvent: {
            /** @constant */
            type?: "sequence.completed";
            data?: {
                object: components["schemas"]["Enrollment"];
            };
        } & components["schemas"]["Event"];
        /** @description The `unsubscribe.created` event: A recipient unsubscribes (one-click header, footer link or reply), opts out through the public portal, or a suppression with reason `unsubscribe` is created through the API. */
        UnsubscribeCreatedEvent: {
            /** @constant */
            type?: "unsubscribe.created";
            data?: {
                object: components["schemas"]["Suppression"];
            };
        } & components["schemas"]["Event"];
        /** @description The `credits.low` event: The total balance drops below 10% of the plan's monthly credits; once per period. */
        CreditsLowEvent: {
            /** @constant */
            type?: "credits.low";
            data?: {
                object: components["schemas"]["CreditBalance"];
            };
        } & components["schemas"]["Event"];
    };
    responses: {
        /** @description `invalid_request`: a parameter is missing, has the wrong type or fails validation; `param` names it. What it means, what to do, whether to retry: [`invalid_request` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#invalid_request). */
        InvalidRequest: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "invalid_request_error",
                 *         "code": "invalid_request",
                 *         "message": "a parameter is missing, has the wrong type or fails validation; `param` names it.",
                 *         "param": "limit",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#invalid_request"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `authentication_failed`: Authorization header missing, malformed, or the key revoked. What it means, what to do, whether to retry: [`authentication_failed` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#authentication_failed). */
        AuthenticationFailed: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "authentication_error",
                 *         "code": "authentication_failed",
                 *         "message": "Authorization header missing, malformed, or the key revoked.",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#authentication_failed"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `insufficient_credits`: not enough credits for a search page or a reveal; nothing is charged. What it means, what to do, whether to retry: [`insufficient_credits` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#insufficient_credits). */
        InsufficientCredits: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "billing_error",
                 *         "code": "insufficient_credits",
                 *         "message": "not enough credits for a search page or a reveal; nothing is charged.",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#insufficient_credits"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `permission_denied`: the plan lacks the API, or the lens is not on the plan. What it means, what to do, whether to retry: [`permission_denied` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#permission_denied). */
        PermissionDenied: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "permission_error",
                 *         "code": "permission_denied",
                 *         "message": "the plan lacks the API, or the lens is not on the plan.",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#permission_denied"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `not_found`: no object with that ID in this workspace (including deleted objects). What it means, what to do, whether to retry: [`not_found` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#not_found). */
        NotFound: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "invalid_request_error",
                 *         "code": "not_found",
                 *         "message": "no object with that ID in this workspace (including deleted objects).",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#not_found"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `conflict`: a duplicate, an Idempotency-Key reused with a different body, or a concurrent change. What it means, what to do, whether to retry: [`conflict` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#conflict). */
        Conflict: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "invalid_request_error",
                 *         "code": "conflict",
                 *         "message": "a duplicate, an Idempotency-Key reused with a different body, or a concurrent change.",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#conflict"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `rate_limited`: more than 120 requests in a minute with this key; see `Retry-After`. What it means, what to do, whether to retry: [`rate_limited` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#rate_limited). */
        RateLimited: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "rate_limit_error",
                 *         "code": "rate_limited",
                 *         "message": "more than 120 requests in a minute with this key; see `Retry-After`.",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#rate_limited"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `internal_error`: failure on the service side; safe to retry with the same Idempotency-Key. What it means, what to do, whether to retry: [`internal_error` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#internal_error). */
        InternalError: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "api_error",
                 *         "code": "internal_error",
                 *         "message": "failure on the service side; safe to retry with the same Idempotency-Key.",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#internal_error"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `service_unavailable`: the service or its database is not answering for the moment (a database failover), or a service the request needs is not configured on this installation (the opt-out portal without a mail server); see `Retry-After`, and retry with the same Idempotency-Key What it means, what to do, whether to retry: [`service_unavailable` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#service_unavailable). */
        ServiceUnavailable: {
            headers: {
                "Request-Id": components["headers"]["RequestId"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "type": "api_error",
                 *         "code": "service_unavailable",
                 *         "message": "the service or its database is not answering for the moment (a database failover), or a service the request needs is not configured on this installation (the opt-out portal without a mail server); see `Retry-After`, and retry with the same Idempotency-Key",
                 *         "doc_url": "http://127.0.0.1:3000/api/v1/docs/errors#service_unavailable"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description API version (a date). Defaults to the version pinned on the key. */
        ServiceVersion: "2026-09-28";
        /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description Identifier of this request; quote it when asking for help. */
        RequestId: string;
        /** @description Requests allowed per one-minute window for this key (120). */
        RateLimitLimit: number;
        /** @description Requests left in the current window. */
        RateLimitRemaining: number;
        /** @description Seconds until the current window ends. */
        RateLimitReset: number;
        /** @description Seconds to wait before retrying. */
        RetryAfter: number;
        /** @description `true` when this is the stored response of an earlier request with the same Idempotency-Key. */
        IdempotentReplayed: "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    companies_list: {
        parameters: {
            query?: {
                q?: string;
                country?: string;
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List companies */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Company"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    companies_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the companie. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve a company */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Company"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    credits_balance: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve the credit balance */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreditBalance"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    docs_page: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Interactive API reference */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    docs_errorCodes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Error catalogue */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    docs_renderer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reference page's renderer */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    events_list: {
        parameters: {
            query?: {
                type?: "lead.created" | "lead.updated" | "lead.stage_changed" | "reveal.completed" | "email.sent" | "email.replied" | "email.bounced" | "sequence.completed" | "unsubscribe.created" | "credits.low";
                "created[gte]"?: string;
                "created[lte]"?: string;
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List events */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Event"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    events_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the event. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve an event */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    events_stream: {
        parameters: {
            query?: {
                types?: string;
            };
            header?: {
                /** @description Resume after this event: the `id` of the last event received from a stream of this key's workspace and mode. */
                "Last-Event-ID"?: string;
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stream events */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    exports_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateExportDto"];
            };
        };
        responses: {
            /** @description Start an export */
            202: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Export"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    exports_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the export. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve an export */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Export"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    exports_download: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ID of the export. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Download an export file (signed link) */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    leads_list: {
        parameters: {
            query?: {
                lens?: "leads" | "investors" | "researchers" | "grants";
                tag?: string;
                stage_id?: string;
                q?: string;
                updated_since?: string;
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List leads */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Lead"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    leads_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateLeadDto"];
            };
        };
        responses: {
            /** @description Create a lead */
            201: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Lead"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    leads_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the lead. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve a lead */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Lead"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    leads_delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the lead. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a lead */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedObject"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    leads_update: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the lead. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["UpdateLeadDto"];
            };
        };
        responses: {
            /** @description Update a lead */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Lead"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    leads_moveStage: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the lead. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MoveStageDto"];
            };
        };
        responses: {
            /** @description Move a lead to a pipeline stage */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Lead"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    docs_openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description This OpenAPI document */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    optout_form: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Opt-out portal: request form */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    optout_request: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** Format: email */
                    email: string;
                };
                "application/json": {
                    /** Format: email */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Opt-out portal: send the confirmation link */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description `invalid_request`: a parameter is missing, has the wrong type or fails validation; `param` names it. (an HTML page to a form post, the error object to a JSON client). What it means, what to do, whether to retry: [`invalid_request` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#invalid_request). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description `service_unavailable`: the service or its database is not answering for the moment (a database failover), or a service the request needs is not configured on this installation (the opt-out portal without a mail server); see `Retry-After`, and retry with the same Idempotency-Key (an HTML page to a form post, the error object to a JSON client). What it means, what to do, whether to retry: [`service_unavailable` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#service_unavailable). */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optout_confirmPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ID (token). */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Opt-out portal: confirmation page (the mailed link) */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    optout_confirm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ID (token). */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-www-form-urlencoded": Record<string, never>;
            };
        };
        responses: {
            /** @description Opt-out portal: confirm */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description `not_found`: no object with that ID in this workspace (including deleted objects). (an HTML page). What it means, what to do, whether to retry: [`not_found` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#not_found). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description `service_unavailable`: the service or its database is not answering for the moment (a database failover), or a service the request needs is not configured on this installation (the opt-out portal without a mail server); see `Retry-After`, and retry with the same Idempotency-Key (an HTML page). What it means, what to do, whether to retry: [`service_unavailable` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#service_unavailable). */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    pipelines_list: {
        parameters: {
            query?: {
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List pipelines */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Pipeline"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    docs_postmanCollection: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description This document as a Postman collection */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    search_reveal: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description From a search hit (prefix `ent_`). */
                    entity_id: string;
                };
            };
        };
        responses: {
            /** @description The entity was already revealed: free, `already_revealed` true. */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reveal"];
                };
            };
            /** @description Reveal a search result */
            201: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reveal"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            402: components["responses"]["InsufficientCredits"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    search_search: {
        parameters: {
            query: {
                /** @description The lens to search. */
                lens: "leads" | "investors" | "researchers" | "grants";
                /** @description Free text: names, topics, domains, programs. */
                q?: string;
                /** @description Filters as `filters[key]=value`; repeat the key for several values. Leads: industry, country, size, title. Investors: stage, sector, type, check_min, check_max, state. Researchers: region, country, institution, min_works, recency. Grants: agency, program, mechanism, deadline_before. */
                filters?: {
                    [key: string]: string | string[];
                };
                /** @description 1 to 40. */
                page?: number;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Search a lens */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResults"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            402: components["responses"]["InsufficientCredits"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sequences_list: {
        parameters: {
            query?: {
                status?: "draft" | "active" | "paused" | "completed";
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List sequences */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Sequence"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sequences_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the sequence. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve a sequence */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sequence"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sequences_enroll: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description ID of the sequence. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateEnrollmentsDto"];
            };
        };
        responses: {
            /** @description Enroll leads in a sequence */
            201: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnrollmentResult"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sequences_unenroll: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the sequence. */
                id: string;
                /** @description ID (lead id). */
                lead_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stop a sequence for one lead */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Enrollment"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    suppressions_list: {
        parameters: {
            query?: {
                type?: "email" | "domain";
                q?: string;
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List suppressions */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Suppression"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    suppressions_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateSuppressionDto"] & (unknown | unknown);
            };
        };
        responses: {
            /** @description Create a suppression */
            201: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    tasks_list: {
        parameters: {
            query?: {
                status?: "open" | "done";
                lead_id?: string;
                assignee_id?: string;
                due_before?: string;
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List tasks */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["Task"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    tasks_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTaskDto"];
            };
        };
        responses: {
            /** @description Create a task */
            201: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    tasks_update: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the task. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["UpdateTaskDto"];
            };
        };
        responses: {
            /** @description Update a task */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    unsubscribe_show: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ID (token). */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unsubscribe page (email footer link) */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    unsubscribe_unsubscribe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ID (token). */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @constant */
                    "List-Unsubscribe"?: "One-Click";
                };
            };
        };
        responses: {
            /** @description Unsubscribe (RFC 8058 one-click and the page button) */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description `not_found`: no object with that ID in this workspace (including deleted objects). (an HTML page). What it means, what to do, whether to retry: [`not_found` in the error catalogue](http://127.0.0.1:3000/api/v1/docs/errors#not_found). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    webhookEndpoints_list: {
        parameters: {
            query?: {
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List webhook endpoints */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["WebhookEndpoint"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookEndpointDto"];
            };
        };
        responses: {
            /** @description Create a webhook endpoint */
            201: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retrieve a webhook endpoint */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a webhook endpoint */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedObject"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_update: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookEndpointDto"];
            };
        };
        responses: {
            /** @description Update a webhook endpoint */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_deliveries: {
        parameters: {
            query?: {
                limit?: number;
                starting_after?: string;
            };
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List a webhook endpoint's deliveries */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        object: "list";
                        data: components["schemas"]["WebhookDelivery"][];
                        /** @description Another page exists. */
                        has_more: boolean;
                        /** @description Pass as `starting_after` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_retryDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
                /** @description ID (delivery id). */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Send a delivery again */
            202: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_rollSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Roll a webhook endpoint's signing secret */
            200: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithRolledSecret"];
                };
            };
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhookEndpoints_sendTest: {
        parameters: {
            query?: never;
            header?: {
                /** @description API version (a date). Defaults to the version pinned on the key. */
                "Service-Version"?: components["parameters"]["ServiceVersion"];
                /** @description Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description ID of the webhook endpoint. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestWebhookEndpointDto"];
            };
        };
        responses: {
            /** @description Send a sample event to a webhook endpoint */
            202: {
                headers: {
                    "Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["AuthenticationFailed"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    webhook_event: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Event"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_lead_created: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeadCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_lead_updated: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeadUpdatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_lead_stage_changed: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeadStageChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_reveal_completed: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RevealCompletedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_email_sent: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmailSentEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_email_replied: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmailRepliedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_email_bounced: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmailBouncedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_sequence_completed: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SequenceCompletedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_unsubscribe_created: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UnsubscribeCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_credits_low: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix_seconds>,v1=<hex_hmac>`; several `v1` values may be present. */
                "Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreditsLowEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
