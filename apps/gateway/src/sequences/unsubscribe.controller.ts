import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { ApiError } from '../http/api-error';
import { RpcClient } from '../rpc/rpc.client';
import { Public } from '../http/public.decorator';
import { HTML_PAGE, Operation } from '../openapi/operation.decorator';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto">${body}</body></html>`;

@Controller('api/v1/unsubscribe')
export class UnsubscribeController {
  constructor(private readonly rpc: RpcClient) {}

  /** The footer link: a page with one button (a GET never changes anything, link scanners open it). */
  @Get(':token')
  @Public({ forms: true })
  @Operation({
    summary: 'Unsubscribe page (email footer link)',
    description: 'The signed token of an email is the credential: no API key. Shows a page with one button; a GET changes nothing.',
    response: 'file',
    errors: [429, 500],
    media: HTML_PAGE,
  })
  show(@Param('token') token: string, @Res() reply: FastifyReply): void {
    reply
      .type('text/html; charset=utf-8')
      .send(page('Unsubscribe', `<h1>Unsubscribe</h1><form method="post" action="${encodeURIComponent(token)}"><button type="submit">Unsubscribe me</button></form>`));
  }

  /** RFC 8058 one-click (List-Unsubscribe-Post) and the page's button: a workspace suppression `unsubscribe`. */
  @Post(':token')
  @Public({ forms: true })
  @HttpCode(200)
  @Operation({
    summary: 'Unsubscribe (RFC 8058 one-click and the page button)',
    description: 'Creates a workspace suppression with reason `unsubscribe` for the recipient of the email. No API key: the signed token is the credential.',
    response: 'file',
    status: 200,
    errors: [404, 429, 500],
    htmlErrors: true,
    idempotent: false,
    requestMedia: {
      'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { 'List-Unsubscribe': { type: 'string', const: 'One-Click' } } } },
    },
    media: HTML_PAGE,
  })
  async unsubscribe(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      await this.rpc.send(SUBJECTS.sequences.unsubscribe, { request_id: request.id } as RequestContext, { token });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') {
        reply.code(404).type('text/html; charset=utf-8').send(page('Unsubscribe', '<h1>This link is not valid</h1>'));
        return;
      }
      throw err;
    }
    reply.type('text/html; charset=utf-8').send(page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will not receive further emails from this sender.</p>'));
  }
}
