import { Injectable } from '@nestjs/common';
import { CreateNoteRequest, ID_PREFIX, Note, NOTE_LIMITS, RequestContext } from '@app/contracts';
import { DomainError, newId } from '@app/platform';
import { renderNote } from './note.mapper';
import { NotesRepository } from './notes.repository';

const FOREIGN_KEY_VIOLATION = '23503';

@Injectable()
export class NotesService {
  constructor(private readonly notes: NotesRepository) {}

  /**
   * A note on a lead of the workspace, written by the member of the request. No gateway
   * validates this request (the caller is the application side), so crm checks the fields.
   */
  async create(ctx: RequestContext, request: CreateNoteRequest): Promise<Note> {
    const leadId = request?.lead_id;
    const body = request?.body;
    if (typeof leadId !== 'string' || leadId === '') throw DomainError.invalid('lead_id', 'lead_id is required');
    if (typeof body !== 'string' || body.trim() === '') throw DomainError.invalid('body', 'body must be a non-empty string');
    if (body.length > NOTE_LIMITS.body) throw DomainError.invalid('body', `body must be at most ${NOTE_LIMITS.body} characters`);
    try {
      const row = await this.notes.insertForLead({
        id: newId(ID_PREFIX.note),
        workspace_id: ctx.workspace_id,
        lead_id: leadId,
        body,
        author_id: ctx.member_id ?? null,
      });
      if (!row) throw DomainError.notFound('lead', leadId, 'lead_id');
      return renderNote(row);
    } catch (err) {
      // the lead was deleted between the check and the insert (cannot happen under KEY SHARE; kept as a net)
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw DomainError.notFound('lead', leadId, 'lead_id');
      throw err;
    }
  }
}
