import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { ApiError } from '../http/api-error';
import { RpcClient } from '../rpc/rpc.client';

/** The public opt-out portal's routes (no API key; the mailed link is the credential). */
export const OPTOUT_PATH = /^\/api\/v1\/optout(?:\/confirm\/[A-Za-z0-9_.-]{1,700})?\/?(?:\?.*)?$/;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto"><h1>${escape(title)}</h1>${body}</body></html>`;

@Controller('api/v1/optout')
export class OptoutController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  form(@Res() reply: FastifyReply): void {
    reply.type('text/html; charset=utf-8').send(page('Stop all outreach email',
      '<p>Enter your address. We mail you a link; once you confirm, no workspace on this platform can email you through it.</p>' +
      '<form method="post" action="optout"><label>Email <input type="email" name="email" required></label> <button type="submit">Send the link</button></form>'));
  }

  @Post()
  @HttpCode(200)
  async request(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const email = body && typeof body === 'object' ? (body as Record<string, unknown>).email : undefined;
    if (typeof email !== 'string' || !email.trim()) throw ApiError.invalid('email', 'email is required');
    await this.rpc.send(SUBJECTS.sequences.optoutRequest, { request_id: request.id } as RequestContext, { email });
    reply.type('text/html; charset=utf-8').send(page('Check your inbox', `<p>If ${escape(email.trim())} can receive mail, a confirmation link is on its way.</p>`));
  }

  /** The mailed link: a page with one button (a GET changes nothing; mail scanners open links). */
  @Get('confirm/:token')
  confirmPage(@Param('token') token: string, @Res() reply: FastifyReply): void {
    reply.type('text/html; charset=utf-8').send(page('Confirm your opt-out',
      `<form method="post" action="${escape(encodeURIComponent(token))}"><button type="submit">Confirm: never email me</button></form>`));
  }

  @Post('confirm/:token')
  @HttpCode(200)
  async confirm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      await this.rpc.send(SUBJECTS.sequences.optoutConfirm, { request_id: request.id } as RequestContext, { token });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') {
        reply.code(404).type('text/html; charset=utf-8').send(page('This link is not valid', '<p>It may have expired. Ask for a new one.</p>'));
        return;
      }
      throw err;
    }
    reply.type('text/html; charset=utf-8').send(page('You are opted out', '<p>No workspace on this platform will email you through it.</p>'));
  }
}
