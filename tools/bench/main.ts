import { runExportsBench } from './exports';
import { runLeadsBench } from './leads';
import { runLeadsListBench } from './leads-list';
import { runSearchBench } from './search';
import { runSearchIndexBench } from './search-index';
import { runWebhooksBench } from './webhooks';
import { runSequencesBench } from './sequences';

/** `npm run bench -- <scenario>`: each scenario starts its own mesh and prints its figures. */
const SCENARIOS: Record<string, () => Promise<void>> = {
  leads: runLeadsBench,
  'leads-list': runLeadsListBench,
  exports: runExportsBench,
  search: runSearchBench,
  'search-index': runSearchIndexBench,
  webhooks: runWebhooksBench,
  sequences: runSequencesBench,
};

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'leads';
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown benchmark '${name}' (known: ${Object.keys(SCENARIOS).join(', ')})`);
  await scenario();
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exit(1);
});
