import { API_VERSIONS, ApiVersion, EventEnvelope } from '@app/contracts';

/**
 * How `data` changes from the version before to this one. Events are recorded at the current
 * version; rendering for an older pinned version applies the downgrades from the newest back
 * to the pinned one. `2026-09-28` is the first version, so there is nothing to apply yet.
 */
const DOWNGRADES: Partial<Record<ApiVersion, (type: string, data: EventEnvelope['data']) => EventEnvelope['data']>> = {};

/**
 * The envelope as rendered at `version`, in the spec's field order; `sample` (true) only on a
 * sample event of POST /webhook_endpoints/{id}/test.
 */
export function eventBody(event: EventEnvelope, version: ApiVersion): EventEnvelope {
  let data = event.data;
  for (let i = API_VERSIONS.length - 1; i >= 0 && API_VERSIONS[i] !== version; i--) {
    data = DOWNGRADES[API_VERSIONS[i]]?.(event.type, data) ?? data;
  }
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    api_version: version,
    created: event.created,
    workspace_id: event.workspace_id,
    livemode: event.livemode,
    ...(event.sample === true ? { sample: true as const } : {}),
    data,
  };
}

/** The exact body sent to an endpoint pinned at `version`. */
export function renderEvent(event: EventEnvelope, version: ApiVersion): string {
  return JSON.stringify(eventBody(event, version));
}
