import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { ApiError } from '../http/api-error';
import { RpcClient } from '../rpc/rpc.client';
import { Public } from '../http/public.decorator';
import { HTML_PAGE, Operation } from '../openapi/operation.decorator';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto"><h1>${escape(title)}</h1>${body}</body></html>`;

const unavailable = '<p role="alert">Nothing was recorded. Try again in a few minutes.</p>';
/**
 * A 503 (`service_unavailable`): no mail server to send the link with, or a service or its
 * database not answering for the moment (a failover). Both mean the same to the visitor: nothing
 * happened, and asking again later works; the page says so and carries the error's Retry-After.
 */
const notNow = '<p role="alert">We cannot take your request at the moment, so no link was sent and nothing was recorded. Try again in a few minutes.</p>';
const notNowConfirm = '<p role="alert">We cannot take your confirmation at the moment, so nothing was changed. Try the button again in a few minutes; the link still works.</p>';

/** The request form; after a refusal, with the address as typed and the reason (announced to screen readers). */
const requestForm = (value = '', error?: string) =>
  '<p>Enter your address. We mail you a link; once you confirm, no workspace on this platform can email you through it.</p>' +
  (error ? `<p id="email-error" role="alert" style="color:#b00020">${escape(error)}</p>` : '') +
  // no action: the form posts back to the URL it was served at
  '<form method="post"><label for="email">Email address</label> ' +
  `<input id="email" type="email" name="email" autocomplete="email" required value="${escape(value)}"${error ? ' aria-invalid="true" aria-describedby="email-error"' : ''}> ` +
  '<button type="submit">Send the link</button></form>';

@Controller('api/v1/optout')
export class OptoutController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Public({ forms: true })
  @Operation({
    summary: 'Opt-out portal: request form',
    description: 'A page for recipients: enter an address, receive a confirmation link. No API key.',
    response: 'file',
    errors: [429, 500],
    media: HTML_PAGE,
  })
  form(@Res() reply: FastifyReply): void {
    reply.type('text/html; charset=utf-8').send(page('Stop all outreach email', requestForm()));
  }

  /**
   * An address the portal refuses is 400: to the HTML form, the form again with the address kept and
   * the reason shown; to a JSON client, the API's error object.
   */
  @Post()
  @Public({ forms: true })
  @HttpCode(200)
  @Operation({
    summary: 'Opt-out portal: send the confirmation link',
    description:
      'Mails a confirmation link to the address (whether or not it can receive mail, the answer is the same). A refused address is 400: ' +
      'the form again, with the reason, to the HTML form; the error object to a JSON client. 503 `service_unavailable` when the installation ' +
      'has no mail server for the portal (or it does not answer): nothing is recorded. No API key.',
    response: 'file',
    status: 200,
    errors: [400, 429, 500, 503],
    htmlErrors: 'negotiated',
    idempotent: false,
    requestMedia: {
      'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] } },
      'application/json': { schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] } },
    },
    media: HTML_PAGE,
  })
  async request(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const email = body && typeof body === 'object' ? (body as Record<string, unknown>).email : undefined;
    const fromForm = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const refuse = (message: string, value: string, err: ApiError) => {
      if (!fromForm) throw err;
      reply.code(400).type('text/html; charset=utf-8').send(page('Stop all outreach email', requestForm(value, message)));
    };
    if (typeof email !== 'string' || !email.trim()) return refuse('Enter your email address.', '', ApiError.invalid('email', 'email is required'));
    try {
      await this.rpc.send(SUBJECTS.sequences.optoutRequest, { request_id: request.id } as RequestContext, { email });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_request') return refuse('This is not a valid email address. Check it and try again.', email, err);
      if (!fromForm) throw err;
      if (err instanceof ApiError && err.code === 'service_unavailable') return void reply.code(503).headers(err.headers).type('text/html; charset=utf-8').send(page('No link was sent', notNow));
      return void reply.code(500).type('text/html; charset=utf-8').send(page('Something went wrong', unavailable));
    }
    reply.type('text/html; charset=utf-8').send(page('Check your inbox', `<p>If ${escape(email.trim())} can receive mail, a confirmation link is on its way. It works for 48 hours.</p>`));
  }

  /** The mailed link: a page with one button (a GET changes nothing; mail scanners open links). */
  @Get('confirm/:token')
  @Public({ forms: true })
  @Operation({
    summary: 'Opt-out portal: confirmation page (the mailed link)',
    description: 'A page with one button; a GET changes nothing. No API key: the signed token is the credential.',
    response: 'file',
    errors: [429, 500],
    media: HTML_PAGE,
  })
  confirmPage(@Res() reply: FastifyReply): void {
    // no action: the button posts back to this very URL (a trailing slash or a proxy's prefix cannot misdirect it)
    reply.type('text/html; charset=utf-8').send(page('Confirm your opt-out',
      '<p>Once you confirm, no workspace on this platform can email you through it.</p>' +
      '<form method="post"><button type="submit">Confirm: never email me</button></form>'));
  }

  @Post('confirm/:token')
  @Public({ forms: true })
  @HttpCode(200)
  @Operation({
    summary: 'Opt-out portal: confirm',
    description: 'Adds a global suppression of the address: no workspace can email it. An expired or altered link is a 404 page; a 503 page ' +
      'with `Retry-After` when the service is not answering for the moment (nothing was changed, and the link still works). No API key.',
    response: 'file',
    status: 200,
    errors: [404, 429, 500, 503],
    htmlErrors: true,
    idempotent: false,
    requestMedia: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } },
    media: HTML_PAGE,
  })
  async confirm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      await this.rpc.send(SUBJECTS.sequences.optoutConfirm, { request_id: request.id } as RequestContext, { token });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') {
        reply.code(404).type('text/html; charset=utf-8').send(page('This link is not valid', '<p role="alert">It may have expired or been altered. Nothing was changed.</p><p><a href="../../optout">Ask for a new link</a></p>'));
        return;
      }
      if (err instanceof ApiError && err.code === 'service_unavailable') {
        reply.code(503).headers(err.headers).type('text/html; charset=utf-8').send(page('Nothing was changed', notNowConfirm));
        return;
      }
      reply.code(500).type('text/html; charset=utf-8').send(page('Something went wrong', unavailable));
      return;
    }
    reply.type('text/html; charset=utf-8').send(page('You are opted out', '<p>No workspace on this platform will email you through it.</p>'));
  }
}
