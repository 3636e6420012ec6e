import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { Note } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';

export interface NoteRow extends Omit<Note, 'object' | 'created_at'> {
  workspace_id: string;
  created_at: Date;
}

const NOTE_COLUMNS = 'id, workspace_id, lead_id, body, author_id, created_at';

export function renderNote(row: NoteRow): Note {
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
  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  /**
   * Inserts the note when its lead exists in the workspace, in one statement: the foreign key
   * check locks the lead against a concurrent delete. Undefined when there is no such lead.
   */
  async insertForLead(db: Queryable, note: Omit<NoteRow, 'created_at'>): Promise<NoteRow | undefined> {
    const { rows } = await db.query<NoteRow>(
      `INSERT INTO notes (id, workspace_id, lead_id, body, author_id)
       SELECT $1, $2, id, $4, $5 FROM leads WHERE workspace_id = $2 AND id = $3
       RETURNING ${NOTE_COLUMNS}`,
      [note.id, note.workspace_id, note.lead_id, note.body, note.author_id],
    );
    return rows[0];
  }
}
