import { ApiProperty, ApiSchema } from './api-docs';
import { ConstProperty } from './resources/api-property';
import { ApiVersion } from './versions';
import { KeyMode, Lens, MemberRole, Plan } from './enums';

/** Who is asking: travels with every NATS request from the gateway to a service. */
export interface RequestContext {
  request_id: string;
  workspace_id: string;
  key_id: string;
  member_id: string;
  member_role: MemberRole;
  owner_id: string;
  mode: KeyMode;
  livemode: boolean;
  api_version: ApiVersion;
  plan: Plan;
  lenses: Lens[];
  /**
   * Set on a POST sent with an Idempotency-Key that the gateway claimed. When the gateway gives
   * up waiting (timeout), it cannot know whether the service executed the request; the service
   * records the key with what it created, so a retry returns that instead of executing again.
   * `key` is the client's Idempotency-Key already qualified by the API key that sent it (the
   * gateway's scope): a service scoping its record by workspace keeps each API key's creates
   * apart, a test key's from a live key's and a member's from an admin's.
   */
  idempotency?: { key: string; request_hash: string };
}

/** Envelope of every request-reply message. */
export interface RpcRequest<T = unknown> {
  ctx: RequestContext;
  body: T;
}

export interface PageQuery {
  limit: number;
  starting_after?: string;
}

/** A page of a cursor list; `data` holds the listed resource (the document names it per route). */
export class ListEnvelope<T> {
  @ConstProperty('list')
  object!: 'list';

  @ApiProperty({ type: 'array' })
  data!: T[];

  @ApiProperty({ type: 'boolean', description: 'Another page exists.' })
  has_more!: boolean;

  @ApiProperty({ type: 'string', description: 'Pass as `starting_after` for the next page; null on the last page.', nullable: true })
  next_cursor!: string | null;
}

@ApiSchema({ name: 'DeletedObject', description: 'Deletion envelope.' })
export class DeletedEnvelope {
  @ApiProperty({ type: 'string', description: 'ID of the deleted object.' })
  id!: string;

  @ApiProperty({ type: 'string', description: 'Type of the deleted object.' })
  object!: string;

  @ConstProperty(true)
  deleted!: true;
}
