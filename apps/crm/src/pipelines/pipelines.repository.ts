import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { ID_PREFIX, ListPipelinesRequest, StageKind } from '@app/contracts';
import { keysetPage, newId, Queryable, UnitOfWork } from '@app/platform';
import { PIPELINE_TEMPLATES } from './pipeline-templates';
import { PipelineEntity } from './pipeline.entity';
import { StageEntity } from './stage.entity';

export interface StageRow {
  id: string;
  pipeline_id: string;
  name: string;
  position: number;
  kind: StageKind;
}

/**
 * Creates the workspace's pipelines from the templates unless it has them. Safe to call from
 * several requests and replicas at once: a transaction-scoped advisory lock on the workspace
 * serialises the check. Hand-written: it runs in the transaction of a lead's create (benchmarked)
 * or of the workspace.created consumer, both on a node-postgres connection.
 */
export async function provisionPipelines(db: Queryable, workspaceId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pipelines:${workspaceId}`]);
  const existing = await db.query('SELECT 1 FROM pipelines WHERE workspace_id = $1 LIMIT 1', [workspaceId]);
  if (existing.rowCount !== 0) return;
  // The default pipeline is created last so that it lists first (lists are newest first).
  const now = Date.now();
  for (const [index, template] of [...PIPELINE_TEMPLATES].reverse().entries()) {
    const pipelineId = newId(ID_PREFIX.pipeline, now + index);
    await db.query('INSERT INTO pipelines (id, workspace_id, name, lens, is_default) VALUES ($1, $2, $3, $4, $5)', [
      pipelineId, workspaceId, template.name, template.lens, template.isDefault,
    ]);
    await db.query(
      `INSERT INTO stages (id, pipeline_id, workspace_id, name, position, kind)
       SELECT id, $1, $2, name, position - 1, kind
         FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS s (id, name, kind, position)`,
      [pipelineId, workspaceId, template.stages.map(() => newId(ID_PREFIX.stage)), template.stages.map(([n]) => n), template.stages.map(([, k]) => k)],
    );
  }
}

/**
 * The first stage of the workspace's default pipeline (the workspace's id the parameter
 * `workspaceParam`), where new leads land: read by the lead's insert itself (LeadsRepository.insertAtEntryStage).
 */
export const entryStageSql = (workspaceParam: string) =>
  `SELECT s.id, s.pipeline_id, s.name FROM stages s JOIN pipelines p ON p.id = s.pipeline_id
    WHERE p.workspace_id = ${workspaceParam} AND p.is_default ORDER BY s.position LIMIT 1`;

/**
 * Pipelines and stages are listed through TypeORM; what a lead's create or stage move reads
 * (entryStageSql, findStage) stays hand-written on the lead's own transaction, part of every lead
 * insert, the write path `npm run bench -- leads` loads.
 */
@Injectable()
export class PipelinesRepository {
  /** Workspaces whose pipelines exist: after the first check, no query per lead. */
  private readonly provisioned = new Set<string>();

  constructor(
    private readonly uow: UnitOfWork,
    @InjectRepository(PipelineEntity) private readonly pipelines: Repository<PipelineEntity>,
    @InjectRepository(StageEntity) private readonly stages: Repository<StageEntity>,
  ) {}

  async provision(db: Queryable, workspaceId: string): Promise<void> {
    if (this.provisioned.has(workspaceId)) return;
    await provisionPipelines(db, workspaceId);
    this.provisioned.add(workspaceId);
  }

  /** provision in a transaction of its own, when the workspace's pipelines are not known to exist yet. */
  async ensureProvisioned(workspaceId: string): Promise<void> {
    if (this.provisioned.has(workspaceId)) return;
    await this.uow.run((tx) => this.provision(tx, workspaceId));
  }

  async findStage(db: Queryable, workspaceId: string, stageId: string): Promise<StageRow | undefined> {
    const { rows } = await db.query<StageRow>(
      'SELECT id, pipeline_id, name, position, kind FROM stages WHERE workspace_id = $1 AND id = $2',
      [workspaceId, stageId],
    );
    return rows[0];
  }

  /** A page of the workspace's pipelines, newest first, each with its stages in order. */
  async list(workspaceId: string, query: ListPipelinesRequest): Promise<{ pipeline: PipelineEntity; stages: StageEntity[] }[]> {
    const pipelines = await this.pipelines.find(keysetPage<PipelineEntity>({ workspace_id: workspaceId }, query.starting_after, query.limit));
    const stages = pipelines.length === 0
      ? []
      : await this.stages.find({ where: { pipeline_id: In(pipelines.map((p) => p.id)) }, order: { position: 'ASC' } });
    return pipelines.map((pipeline) => ({ pipeline, stages: stages.filter((s) => s.pipeline_id === pipeline.id) }));
  }
}
