import { jetstream } from '@nats-io/jetstream';
import { eventSubject } from '@app/contracts/subjects';
import { newId } from '@app/platform/ids';
import { TestMesh } from '../harness';

/** Events straight into the EVENTS stream, as any service's outbox relay publishes them; returns their ids. */
export async function publishEvents(mesh: TestMesh, workspaceId: string, n: number, type = 'lead.created', livemode = true): Promise<string[]> {
  const js = jetstream(await mesh.natsClient());
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId('evt_');
    ids.push(id);
    const envelope = {
      id, object: 'event', type, api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: workspaceId, livemode,
      data: { object: { id: newId('lead_'), object: 'lead', full_name: `Lead ${i}` } },
    };
    await js.publish(eventSubject(type), JSON.stringify(envelope), { msgID: id });
  }
  return ids;
}
