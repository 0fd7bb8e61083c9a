// Tests of `npm run deploy-check` (scripts/deploy-check.mjs): its rules on
// wrangler.toml, and the command itself on this repository's own
// wrangler.toml, which still has the placeholders a first deploy fills in.
// Run by `npm test` after the Worker is built.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { configProblems, gzipKib, unapplied } from './deploy-check.mjs';

const repoConfig = () => parse(readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8'));

// The repository's wrangler.toml as the deploy steps complete it.
function completed() {
  const config = repoConfig();
  config.d1_databases[0].database_id = '5f3c2a10-8d4e-4b7a-9c61-2e0f7a9b1c23';
  Object.assign(config.vars, {
    SQUARE_APPLICATION_ID: 'sandbox-sq0idb-abc',
    SQUARE_LOCATION_ID: 'L123',
    PUBLIC_URL: 'https://tickets.rex.co.uk',
    SQUARE_WEBHOOK_URL: 'https://tickets.rex.co.uk/webhooks/square',
    MAIL_FROM: 'tickets@rex.co.uk',
  });
  return config;
}

test('a completed wrangler.toml has nothing to fix', () => {
  assert.deepEqual(configProblems(completed()), []);
});

test('each wrong setting is named with what to do', () => {
  for (const [change, named] of [
    [(c) => { c.vars.SQUARE_SDK_URL = 'https://web.squarecdn.com/v1/square.js'; }, 'SQUARE_SDK_URL'],
    [(c) => { c.vars.SQUARE_APPLICATION_ID = 'sq0idp-live'; }, 'SQUARE_APPLICATION_ID'],
    [(c) => { c.vars.PUBLIC_URL = 'http://tickets.rex.co.uk'; }, 'PUBLIC_URL'],
    [(c) => { c.vars.PUBLIC_URL = 'https://tickets.rex.co.uk/'; }, 'PUBLIC_URL'],
    [(c) => { c.vars.SQUARE_WEBHOOK_URL = 'https://tickets.rex.co.uk/square'; }, 'SQUARE_WEBHOOK_URL'],
    [(c) => { c.vars.VENUE_TIME_ZONE = 'Europe/Narnia'; }, 'VENUE_TIME_ZONE'],
    [(c) => { c.triggers.crons = []; }, '[triggers] crons'],
    [(c) => { c.durable_objects.bindings.pop(); }, '[[durable_objects.bindings]]'],
  ]) {
    const config = completed();
    change(config);
    const problems = configProblems(config);
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.ok(problems[0].startsWith(named), problems[0]);
  }
});

test('wrangler\'s output is read for the bundle size and the migrations left', () => {
  assert.equal(gzipKib('Total Upload: 3997.97 KiB / gzip: 1424.39 KiB'), 1424.39);
  assert.equal(gzipKib('nothing'), null);
  assert.deepEqual(unapplied('Migrations to be applied:\n│ 0032_reconcile.sql │\n│ 0033_handled.sql │'), ['0032_reconcile.sql', '0033_handled.sql']);
  assert.deepEqual(unapplied('✅ No migrations to apply!'), []);
});

test('on this repository\'s wrangler.toml the command names the first deploy\'s placeholders', () => {
  const run = spawnSync('node', [new URL('./deploy-check.mjs', import.meta.url).pathname, '--offline'], { encoding: 'utf8' });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  const fixes = run.stdout.split('\n').filter((l) => l.startsWith('✗ ')).map((l) => l.slice(2).split(':')[0]);
  assert.deepEqual(fixes, ['[[d1_databases]] database_id', 'SQUARE_APPLICATION_ID', 'SQUARE_LOCATION_ID',
    'PUBLIC_URL', 'SQUARE_WEBHOOK_URL', 'MAIL_FROM']);
  assert.match(run.stdout, /the bundle is [\d.]+ KiB compressed/);
  assert.match(run.stdout, /\? not checked: the Worker's secrets/);
});
