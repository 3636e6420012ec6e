import { Column, Entity, PrimaryColumn } from 'typeorm';
import { WebhookEndpointStatus } from '@app/contracts';

/** The `webhook_endpoints` table (the schema is the migrations'). */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  workspace_id: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** Event types, or `*`. */
  @Column({ type: 'text', array: true })
  events: string[];

  @Column({ type: 'text' })
  api_version: string;

  /** AES-256-GCM under WEBHOOK_SECRET_KEY (secrets.ts). */
  @Column({ type: 'text' })
  secret_enc: string;

  /** The secret before the last roll, still signing until `previous_secret_expires_at`. */
  @Column({ type: 'text', nullable: true })
  previous_secret_enc: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  previous_secret_expires_at: Date | null;

  @Column({ type: 'text' })
  status: WebhookEndpointStatus;

  @Column({ type: 'int' })
  consecutive_failures: number;

  @Column({ type: 'timestamptz', nullable: true })
  disabled_at: Date | null;

  /** Set by the database (millisecond precision). */
  @Column({ type: 'timestamptz', insert: false, update: false })
  created_at: Date;
}
