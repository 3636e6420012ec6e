import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Note } from '@app/contracts';
import { inTransaction } from '@app/platform';
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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the note when its lead exists in the workspace, holding the lead against a
   * concurrent delete until the note is written. Undefined when there is no such lead.
   */
  insertForLead(note: Omit<NoteEntity, 'created_at'>): Promise<NoteEntity | undefined> {
    return inTransaction(this.dataSource, async ({ manager, client }) => {
      // hand-written: leads have no entity (their statements are benchmarked); KEY SHARE makes a DELETE of the lead wait
      const lead = await client.query('SELECT 1 FROM leads WHERE workspace_id = $1 AND id = $2 FOR KEY SHARE', [note.workspace_id, note.lead_id]);
      if (lead.rowCount !== 1) return undefined;
      const entity = manager.create(NoteEntity, note);
      await manager.insert(NoteEntity, entity);
      return entity;
    });
  }
}
