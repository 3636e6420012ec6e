import { Note } from '@app/contracts';
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
