/**
 * Generated skill sets for measuring the dream pass's finder: procedures (tasks) on systems, with
 * planted duplicates (a skill paraphrased: synonyms, some of which the finder's own list does not
 * know, reordered, merged, dropped and added steps, another name and trigger) and, by
 * construction, near misses (the same system with another task; tasks share some steps).
 */

import { seeded } from './bench/words';
import { TASKS } from './dream-skillgen-tasks';

export interface GeneratedSkill {
  name: string;
  trigger: string;
  body: string;
  system: string;
  task: string;
}

export interface GeneratedSet {
  skills: GeneratedSkill[];
  /** planted duplicate pairs, by name (unordered) */
  duplicates: [string, string][];
  /** pairs of distinct skills on the same system (same topic, another procedure) */
  nearMisses: number;
}

type System = [slug: string, display: string, data: string, cli: string];

const SYSTEMS: System[] = [
  ['postgres', 'Postgres', 'database', 'psql'],
  ['mysql', 'MySQL', 'database', 'mysqladmin'],
  ['redis', 'Redis', 'cache', 'redis-cli'],
  ['mongodb', 'MongoDB', 'collections', 'mongosh'],
  ['kafka', 'Kafka', 'topics', 'kafka-topics'],
  ['rabbitmq', 'RabbitMQ', 'queues', 'rabbitmqctl'],
  ['elasticsearch', 'Elasticsearch', 'indices', 'elasticsearch-cli'],
  ['nginx', 'nginx', 'site configs', 'nginx'],
  ['haproxy', 'HAProxy', 'backends', 'haproxyctl'],
  ['kubernetes', 'Kubernetes', 'workloads', 'kubectl'],
  ['docker', 'Docker host', 'volumes', 'docker'],
  ['terraform', 'Terraform', 'state', 'terraform'],
  ['jenkins', 'Jenkins', 'jobs', 'jenkins-cli'],
  ['gitlab-runner', 'GitLab runner', 'runners', 'gitlab-runner'],
  ['grafana', 'Grafana', 'dashboards', 'grafana-cli'],
  ['prometheus', 'Prometheus', 'time series', 'promtool'],
  ['consul', 'Consul', 'key store', 'consul'],
  ['etcd', 'etcd', 'keyspace', 'etcdctl'],
  ['cassandra', 'Cassandra', 'keyspaces', 'nodetool'],
  ['minio', 'MinIO', 'buckets', 'mc'],
  ['clickhouse', 'ClickHouse', 'tables', 'clickhouse-client'],
  ['memcached', 'Memcached', 'slabs', 'memcstat'],
  ['varnish', 'Varnish', 'cache objects', 'varnishadm'],
  ['traefik', 'Traefik', 'routers', 'traefik'],
  ['keycloak', 'Keycloak', 'realms', 'kcadm'],
  ['airflow', 'Airflow', 'DAGs', 'airflow'],
  ['spark', 'Spark cluster', 'jobs history', 'spark-submit'],
  ['celery', 'Celery workers', 'task queue', 'celery'],
  ['ldap', 'LDAP directory', 'entries', 'ldapmodify'],
  ['sentry', 'Sentry', 'events', 'sentry-cli'],
  ['zookeeper', 'ZooKeeper', 'znodes', 'zkCli'],
  ['influxdb', 'InfluxDB', 'measurements', 'influx'],
  ['jupyterhub', 'JupyterHub', 'user servers', 'jupyterhub'],
  ['postfix', 'Postfix relay', 'mail queue', 'postqueue'],
  ['bind', 'BIND DNS', 'zone files', 'rndc'],
  ['vaultwarden', 'Vaultwarden', 'vaults', 'vwctl'],
  ['opensearch', 'OpenSearch', 'shards', 'opensearch-cli'],
  ['neo4j', 'Neo4j', 'graph store', 'cypher-shell'],
  ['nats', 'NATS', 'streams', 'nats'],
  ['harbor', 'Harbor registry', 'images', 'harbor-cli'],
  ['ceph', 'Ceph storage', 'pools', 'ceph'],
  ['gitea', 'Gitea', 'repositories', 'gitea'],
  ['mattermost', 'Mattermost', 'channels', 'mmctl'],
  ['squid', 'Squid proxy', 'cache dirs', 'squidclient'],
  ['couchdb', 'CouchDB', 'documents', 'couchdb-cli'],
  ['pgbouncer', 'PgBouncer', 'pools', 'pgbouncer-admin'],
  ['nexus', 'Nexus repository', 'artifacts', 'nexus-cli'],
];

/** Paraphrases the generator uses: some the finder's synonym list knows, some it does not (marked by the finder's absence). */
const PARAPHRASE: [RegExp, string[]][] = [
  [/\bStop\b/, ['Halt', 'Shut down', 'Bring down']],
  [/\bStart\b/, ['Launch', 'Bring up', 'Boot']],
  [/\bTake a backup of\b/, ['Snapshot', 'Dump', 'Make a copy of']],
  [/\bVerify\b/, ['Confirm', 'Double-check', 'Validate']],
  [/\bCheck\b/, ['Inspect', 'Look at', 'Examine']],
  [/\bCopy\b/, ['Duplicate', 'Transfer', 'Upload']],
  [/\bDownload\b/, ['Fetch', 'Pull', 'Grab']],
  [/\bInstall\b/, ['Add', 'Put']],
  [/\bRestart\b/, ['Reboot', 'Bounce', 'Cycle']],
  [/\bUpdate\b/, ['Modify', 'Change', 'Edit']],
  [/\bGenerate\b/, ['Create', 'Produce', 'Mint']],
  [/\bStore\b/, ['Save', 'Keep', 'Put']],
  [/\bRead\b/, ['Review', 'Go through', 'Study']],
  [/\bOpen\b/, ['View', 'Bring up', 'Pull up']],
  [/\bFind\b/, ['Locate', 'Search for', 'Spot']],
  [/\bAnnounce\b/, ['Post', 'Notify people about', 'Share']],
  [/\bRemove\b/, ['Delete', 'Clear out', 'Get rid of']],
  [/\bDelete\b/, ['Remove', 'Purge', 'Clear out']],
  [/\berrors\b/, ['failures', 'problems', 'faults']],
  [/\bnew\b/, ['fresh', 'new']],
  [/\bold\b/, ['previous', 'former', 'old']],
  [/\bfile\b/, ['archive', 'file']],
  [/\bservice\b/, ['daemon', 'service', 'process']],
  [/\bWrite\b/, ['Record', 'Jot down', 'Note']],
  [/\bAdd\b/, ['Append', 'Insert', 'Add']],
  [/\bwhen\b/, ['once', 'if', 'whenever']],
  [/\bmust\b/, ['has to', 'needs to']],
  [/\bbecome\b/, ['get', 'turn']],
  [/\bslow\b/, ['sluggish', 'laggy']],
  [/\bdown\b/, ['offline', 'dead']],

  [/\bleaks\b/, ['is exposed', 'got out']],
  [/\bfull\b/, ['out of space', 'at capacity']],
  [/\bneeds\b/, ['requires', 'wants']],
];
const PREFIXES = ['', '', '', 'Then ', 'Next, ', 'Carefully ', 'Now '];
/** Other names a person or agent gives the same task (a duplicate's name shares no word with its original half the time). */
const TASK_NAMES: Record<string, string[]> = {
  backup: ['snapshot', 'take-dump'],
  restore: ['recover-from-dump', 'bring-back-data'],
  upgrade: ['version-bump', 'move-to-new-release'],
  'rotate-credentials': ['new-admin-secret', 'password-change'],
  'scale-out': ['add-replicas', 'grow-capacity'],
  'debug-latency': ['slow-requests', 'latency-investigation'],
  rollback: ['undo-bad-release', 'revert-deploy'],
  'disk-full': ['free-space', 'volume-cleanup'],
  'renew-certificate': ['tls-refresh', 'cert-expiry'],
  'onboard-user': ['grant-access', 'new-engineer-access'],
  'offboard-user': ['revoke-access', 'leaver-cleanup'],
  failover: ['promote-replica', 'primary-outage'],
  'rotate-logs': ['logrotate-setup', 'log-growth'],
  'health-check': ['morning-check', 'daily-status'],
  'change-config': ['settings-rollout', 'config-pr'],
  'migrate-host': ['move-hardware', 'relocate-region'],
  'security-patch': ['advisory-response', 'cve-patching'],
  'load-test': ['stress-run', 'capacity-test'],
  'cleanup-data': ['archive-unused-data', 'prune-old-data'],
  'monitoring-setup': ['add-observability', 'exporter-install'],
};
const NAME_STYLES = [
  (s: string, t: string) => `${t}-${s}`,
  (s: string, t: string) => `${TASK_NAMES[t][0]}-${s.slice(0, 3)}`,
  (s: string, t: string) => `how-to-${t}-${s}`,
  (s: string, t: string) => `${s.slice(0, 3)}-${TASK_NAMES[t][1]}`,
];
const TRIGGER_STYLES = [(t: string) => `Use ${t}`, (t: string) => `Apply this ${t}`, (t: string) => t.replace(/^when/, 'whenever')];
const FILLER = ['Note the time in the ops log', 'Keep the team channel updated', 'Ask for help if anything looks odd'];

const fill = (template: string, sys: System) =>
  template.replaceAll('{s}', sys[0]).replaceAll('{n}', sys[1]).replaceAll('{d}', sys[2]).replaceAll('{c}', sys[3]);

function bodyOf(title: string, steps: string[], numbered: boolean): string {
  return `\n# ${title}\n\n${steps.map((s, i) => `${numbered ? `${i + 1}.` : '-'} ${s}`).join('\n')}\n`;
}

/** A paraphrase of a procedure: synonyms, one swap, maybe a merge, maybe a dropped or added step. */
function paraphrase(steps: string[], rand: () => number, reshape = true): string[] {
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  let out = steps.map((step) => {
    let s = step;
    for (const [pattern, options] of PARAPHRASE) if (pattern.test(s) && rand() < 0.7) s = s.replace(pattern, pick(options));
    const prefix = reshape ? pick(PREFIXES) : '';
    return prefix ? `${prefix}${s[0].toLowerCase()}${s.slice(1)}` : s;
  });
  if (!reshape) return out;
  const swap = 1 + Math.floor(rand() * (out.length - 2));
  [out[swap], out[swap + 1]] = [out[swap + 1], out[swap]];
  if (rand() < 0.5) {
    const at = Math.floor(rand() * (out.length - 1));
    out.splice(at, 2, `${out[at]}, then ${out[at + 1][0].toLowerCase()}${out[at + 1].slice(1)}`);
  }
  if (rand() < 0.3) out = out.filter((_, i) => i !== out.length - 1);
  if (rand() < 0.3) out.push(pick(FILLER));
  return out;
}

/** A set of `size` skills with `size / 10` planted duplicate pairs, seeded. */
export function generateSkillSet(size: number, seed = 1): GeneratedSet {
  const rand = seeded(seed);
  const combos: [System, (typeof TASKS)[number]][] = [];
  for (const sys of SYSTEMS) for (const task of TASKS) combos.push([sys, task]);
  for (let i = combos.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [combos[i], combos[j]] = [combos[j], combos[i]];
  }
  const dupCount = Math.floor(size / 10);
  const baseCount = size - dupCount;
  if (baseCount > combos.length) throw new Error(`at most ${combos.length + Math.floor(combos.length / 9)} skills can be generated`);
  const skills: GeneratedSkill[] = combos.slice(0, baseCount).map(([sys, [task, trigger, steps]]) => ({
    name: `${sys[0]}-${task}`,
    trigger: fill(trigger, sys),
    body: bodyOf(
      `${task.replace(/-/g, ' ')} ${sys[1]}`,
      steps.map((s) => fill(s, sys)),
      rand() < 0.5,
    ),
    system: sys[0],
    task,
  }));
  const duplicates: [string, string][] = [];
  for (let i = 0; i < dupCount; i += 1) {
    const [sys, [task, trigger, steps]] = combos[i];
    const name = NAME_STYLES[i % NAME_STYLES.length](sys[0], task);
    skills.push({
      name,
      trigger: TRIGGER_STYLES[i % TRIGGER_STYLES.length](paraphrase([fill(trigger, sys)], rand, false)[0]),
      body: bodyOf(
        `${sys[1]} ${task.replace(/-/g, ' ')} runbook`,
        paraphrase(
          steps.map((s) => fill(s, sys)),
          rand,
        ),
        rand() < 0.5,
      ),
      system: sys[0],
      task,
    });
    duplicates.push([`${sys[0]}-${task}`, name]);
  }
  const bySystem = new Map<string, number>();
  for (const s of skills.slice(0, baseCount)) bySystem.set(s.system, (bySystem.get(s.system) ?? 0) + 1);
  let nearMisses = 0;
  for (const n of bySystem.values()) nearMisses += (n * (n - 1)) / 2;
  return { skills, duplicates, nearMisses };
}
