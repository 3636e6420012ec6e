import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@app/platform';
import { LeadsRepository } from '../leads/leads.repository';
import { NoteEntity } from './note.entity';

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
