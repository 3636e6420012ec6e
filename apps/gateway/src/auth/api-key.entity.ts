import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ApiVersion, KeyMode } from '@app/contracts';

/** A row of `api_keys`: the key itself is never stored, only its hash and last four characters. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'workspace_id' })
  workspaceId!: string;

  @Column({ type: 'text', name: 'member_id' })
  memberId!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'text' })
  mode!: KeyMode;

  @Column({ type: 'text', name: 'key_hash' })
  keyHash!: string;

  @Column({ type: 'text' })
  last4!: string;

  @Column({ type: 'text', name: 'api_version' })
  apiVersion!: ApiVersion;

  /** Set by the database's default. */
  @Column({ type: 'timestamptz', name: 'created_at', insert: false, update: false })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
