import { Injectable } from '@nestjs/common';
import { Note } from '@app/contracts';
import { UnitOfWork } from '@app/platform';
import { LeadsRepository } from '../leads/leads.repository';
import { NoteEntity } from './note.entity';

export function renderNote(row: NoteEntity): Note {
  return {
    id: row.id,
    object: 'note',
    lead_id: row.lead_id,
    body: row.body,
    author_id: row.author_id,
    created_at: row.created_at.toISOString(),
  };
}

/** Notes of leads; they go with their lead (ON DELETE CASCADE). */
@Injectable()
export class NotesRepository {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly leads: LeadsRepository,
  ) {}

  /**
   * Inserts the note when its lead exists in the workspace, holding the lead against a
   * concurrent delete until the note is written. Undefined when there is no such lead.
   */
  insertForLead(note: Omit<NoteEntity, 'created_at'>): Promise<NoteEntity | undefined> {
    return this.uow.run(async ({ manager, client }) => {
      if (!(await this.leads.lockLead(client, note.workspace_id, note.lead_id))) return undefined;
      const entity = manager.create(NoteEntity, note);
      await manager.insert(NoteEntity, entity);
      return entity;
    });
  }
}
