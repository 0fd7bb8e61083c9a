// `npm run deploy-check`: before a deploy, checks what would go wrong with
// it and prints what is still missing, without deploying anything:
//   - wrangler.toml: the database id, the bindings (the showing and
//     waiting-room objects, D1, e-mail, assets), the cron, and the settings
//     the README's deploy steps fill in (Square's ids, environment and
//     webhook URL, PUBLIC_URL, the sender, the time zone);
//   - the bundle: `wrangler deploy --dry-run` builds it and names its
//     bindings; its gzip size against Workers Free's and Paid's limits;
//   - with Cloudflare credentials (skipped with --offline): the secrets
//     set on the Worker and the D1 migrations not yet applied remotely.
// Exits 1 when something must be fixed first. Once deployed, staff see the
// same settings checked live in `GET /api/health` and on the admin home.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

const SANDBOX_API = 'https://connect.squareupsandbox.com';
const PRODUCTION_API = 'https://connect.squareup.com';
const SDK = {
  [SANDBOX_API]: 'https://sandbox.web.squarecdn.com/v1/square.js',
  [PRODUCTION_API]: 'https://web.squarecdn.com/v1/square.js',
};
export const SECRETS = ['ADMIN_TOKEN', 'SESSION_SECRET', 'TICKET_SIGNING_KEYS', 'ORDER_LINK_KEYS',
  'SQUARE_ACCESS_TOKEN', 'SQUARE_WEBHOOK_SIGNATURE_KEY'];
// Cloudflare's limits on a Worker's compressed size.
const FREE_BUNDLE_KIB = 3 * 1024;
const PAID_BUNDLE_KIB = 10 * 1024;

function httpsAddress(text) {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' ? url : null;
  } catch (_) {
    return null;
  }
}

/// What is wrong with a parsed wrangler.toml: a list of sentences, each
/// naming the setting and what to do. Pure, for the tests.
export function configProblems(config) {
  const problems = [];
  const vars = config.vars || {};
  const want = (ok, sentence) => { if (!ok) problems.push(sentence); };
  const db = (config.d1_databases || []).find((d) => d.binding === 'DB');
  want(db, '[[d1_databases]]: no binding DB');
  want(!db || (db.database_id && !/^0{8}-/.test(db.database_id)),
    '[[d1_databases]] database_id: put the id `npx wrangler d1 create showtime` printed (step 2)');
  const objects = ((config.durable_objects || {}).bindings || []).map((b) => b.class_name);
  for (const name of ['Showtime', 'WaitingRoom', 'CodeUses']) {
    want(objects.includes(name), `[[durable_objects.bindings]]: no binding of class ${name}`);
  }
  const classes = (config.migrations || []).flatMap((m) => m.new_sqlite_classes || []);
  for (const name of ['Showtime', 'WaitingRoom', 'CodeUses']) {
    want(classes.includes(name), `[[migrations]]: ${name} is not created as a SQLite-backed class`);
  }
  want((config.send_email || []).some((b) => b.name === 'EMAIL'), '[[send_email]]: no binding EMAIL');
  want(config.assets && config.assets.binding === 'ASSETS', '[assets]: no binding ASSETS');
  want(((config.triggers || {}).crons || []).length > 0, '[triggers] crons: the recovery sweep needs a cron');
  const base = (vars.SQUARE_BASE_URL || '').replace(/\/$/, '');
  want(SDK[base], `SQUARE_BASE_URL: ${SANDBOX_API} (sandbox) or ${PRODUCTION_API} (production)`);
  want(!SDK[base] || vars.SQUARE_SDK_URL === SDK[base], `SQUARE_SDK_URL: with ${base || 'that API'}, ${SDK[base]}`);
  const app = vars.SQUARE_APPLICATION_ID || '';
  want(app, 'SQUARE_APPLICATION_ID: copy it from the Square Developer Dashboard (step 5)');
  want(!app || (base === SANDBOX_API) === app.startsWith('sandbox-'),
    'SQUARE_APPLICATION_ID: the sandbox id (sandbox-…) goes with the sandbox API, the production id with production');
  want(vars.SQUARE_LOCATION_ID, 'SQUARE_LOCATION_ID: copy a location id from the Square Developer Dashboard (step 5)');
  const publicUrl = httpsAddress(vars.PUBLIC_URL || '');
  want(publicUrl && publicUrl.pathname === '/' && !vars.PUBLIC_URL.endsWith('/'),
    'PUBLIC_URL: the site\'s https:// address, with no path or trailing slash (step 6)');
  const webhook = httpsAddress(vars.SQUARE_WEBHOOK_URL || '');
  want(webhook && webhook.pathname === '/webhooks/square',
    'SQUARE_WEBHOOK_URL: your webhook subscription\'s https:// URL, ending /webhooks/square (step 6)');
  const from = vars.MAIL_FROM || '';
  want(/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(from) && !from.endsWith('.example'),
    'MAIL_FROM: an address on a domain onboarded to Cloudflare Email Service (step 7)');
  want(vars.CINEMA_NAME, 'CINEMA_NAME: the cinema\'s name');
  let zoneOk = false;
  try {
    zoneOk = Boolean(vars.VENUE_TIME_ZONE) && Boolean(new Intl.DateTimeFormat('en', { timeZone: vars.VENUE_TIME_ZONE }));
  } catch (_) { zoneOk = false; }
  want(zoneOk, 'VENUE_TIME_ZONE: an IANA time zone, e.g. Europe/London');
  return problems;
}

/// The compressed size wrangler's dry run printed, in KiB.
export function gzipKib(output) {
  const found = /gzip: ([\d.]+) KiB/.exec(output);
  return found ? Number(found[1]) : null;
}

/// The migrations `wrangler d1 migrations list --remote` says are still to
/// apply, from its output.
export function unapplied(output) {
  if (/No migrations to apply/i.test(output)) return [];
  return [...output.matchAll(/(\d{4}_[\w-]+\.sql)/g)].map((m) => m[1]);
}

function wrangler(args, env = {}) {
  return execFileSync('npx', ['wrangler', ...args], {
    encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000,
  });
}

function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const offline = process.argv.includes('--offline');
  const config = parse(readFileSync(join(root, 'wrangler.toml'), 'utf8'));
  const missing = configProblems(config);
  const unchecked = [];
  const notes = [];

  const migrations = readdirSync(join(root, 'migrations')).filter((f) => f.endsWith('.sql'));
  notes.push(`${migrations.length} D1 migrations in migrations/`);
  if (!existsSync(join(root, 'public', '.well-known', 'apple-developer-merchantid-domain-association'))) {
    notes.push('no Apple Pay domain association file in public/.well-known/ (Apple Pay stays off; step 12)');
  }

  let dry = '';
  try {
    dry = wrangler(['deploy', '--dry-run', '--outdir', mkdtempSync(join(tmpdir(), 'deploy-check-'))],
      existsSync(join(root, 'build')) ? { SHOWTIME_PREBUILT: '1' } : {});
  } catch (error) {
    missing.push(`the bundle does not build: ${(error.stderr || error.message).trim().split('\n').slice(-3).join(' ')}`);
  }
  const kib = gzipKib(dry);
  if (kib !== null) {
    if (kib > PAID_BUNDLE_KIB) missing.push(`the bundle is ${kib} KiB compressed, over Workers Paid's ${PAID_BUNDLE_KIB} KiB`);
    else notes.push(`the bundle is ${kib} KiB compressed (Workers Free takes ${FREE_BUNDLE_KIB}, Paid ${PAID_BUNDLE_KIB})`);
    for (const binding of ['env.SHOWTIME', 'env.WAITING_ROOM', 'env.CODE_USES', 'env.DB', 'env.EMAIL', 'env.ASSETS']) {
      if (!dry.includes(binding)) missing.push(`the bundle has no ${binding} binding`);
    }
  }

  if (offline) {
    unchecked.push('the Worker\'s secrets and the remote migrations (--offline)');
  } else {
    try {
      const set = JSON.parse(wrangler(['secret', 'list', '--format', 'json'])).map((s) => s.name);
      for (const name of SECRETS.filter((n) => !set.includes(n))) {
        missing.push(`secret ${name}: npx wrangler secret put ${name} (step 4, 5 or 6)`);
      }
    } catch (_) {
      unchecked.push('the Worker\'s secrets: sign in with `npx wrangler login` (or a Worker not deployed yet has none to list)');
    }
    try {
      const left = unapplied(wrangler(['d1', 'migrations', 'list', 'DB', '--remote']));
      if (left.length) missing.push(`D1 migrations not applied: npx wrangler d1 migrations apply DB --remote (${left.join(', ')})`);
    } catch (_) {
      unchecked.push('the remote D1 migrations: sign in, and put the database id in wrangler.toml');
    }
  }

  for (const line of notes) console.log(`  ${line}`);
  for (const line of unchecked) console.log(`? not checked: ${line}`);
  for (const line of missing) console.log(`✗ ${line}`);
  if (missing.length) {
    console.log(`deploy-check: ${missing.length} thing${missing.length === 1 ? '' : 's'} to fix before deploying (README, "Deploying to Cloudflare")`);
    process.exit(1);
  }
  console.log('deploy-check: ready to deploy; then open /admin, whose checklist checks the same settings live');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
