import Fastify from 'fastify';
import { Pool } from 'pg';
import { ID_PREFIX } from '@app/contracts';
// the ids module alone: the baseline loads none of the platform but its id format
import { newId } from '@app/platform/ids';

/**
 * The benchmark's baseline: the same lead read and insert as crm, straight from Fastify to
 * PostgreSQL with no gateway, no auth, no NATS hop.
 */
const pool = new Pool({ connectionString: process.env.BASELINE_DATABASE_URL, max: 10 });
const app = Fastify();
const workspaceId = process.env.BASELINE_WORKSPACE_ID as string;

app.get<{ Params: { id: string } }>('/leads/:id', async (request, reply) => {
  const { rows } = await pool.query('SELECT * FROM leads WHERE workspace_id = $1 AND id = $2', [workspaceId, request.params.id]);
  if (!rows[0]) return reply.code(404).send({ error: 'not found' });
  return rows[0];
});

app.post<{ Body: { full_name: string; email: string } }>('/leads', async (request, reply) => {
  const { rows } = await pool.query(
    `INSERT INTO leads (id, workspace_id, lens, full_name, email, lawful_basis) VALUES ($1, $2, 'leads', $3, $4, 'legitimate_interest') RETURNING *`,
    [newId(ID_PREFIX.lead), workspaceId, request.body.full_name, request.body.email],
  );
  return reply.code(201).send(rows[0]);
});

app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => process.stdout.write('ready\n'));
process.on('SIGTERM', () => app.close().then(() => pool.end()).then(() => process.exit(0)));
