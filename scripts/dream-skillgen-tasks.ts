/** The procedures scripts/dream-skillgen.ts writes skills from. */

/** Tasks: slug, trigger, steps; {s} the system's slug, {n} its display name, {d} its data, {c} its command. */
export const TASKS: [string, string, string[]][] = [
  [
    'backup',
    'before risky maintenance on {n} or when a backup of the {d} is due',
    [
      'Announce the {n} maintenance window in the team channel',
      'Stop writes to the {s} service',
      'Take a backup of the {d} with {c} dump',
      'Copy the {s} backup file to the offsite bucket',
      'Verify the {s} backup checksum matches the original',
      'Resume writes to the {s} service',
    ],
  ],
  [
    'restore',
    'when the {n} {d} is lost or corrupted and must come back from a backup',
    [
      'Announce the {n} maintenance window in the team channel',
      'Stop the {s} service on every node',
      'Download the latest {s} backup file from the offsite bucket',
      'Verify the {s} backup checksum matches the original',
      'Load the backup into the {d} with {c} restore',
      'Start the {s} service and check the log for errors',
    ],
  ],
  [
    'upgrade',
    'when a new {n} release is out or the current version reaches end of life',
    [
      'Read the {n} release notes for breaking changes',
      'Take a backup of the {d} with {c} dump',
      'Install the new {n} package version on a canary node',
      'Run the schema migration with {c} migrate',
      'Restart the {s} service on the remaining nodes',
      'Check the version reported by {c} status',
    ],
  ],
  [
    'rotate-credentials',
    'when the {n} admin password leaks or is older than ninety days',
    [
      'Generate a new password for the {s} admin account',
      'Store the new {s} password in the secret manager',
      'Update the {s} config file with the new password',
      'Restart the {s} service',
      'Revoke the old {s} admin password',
      'Check that {s} clients can log in with the new password',
    ],
  ],
  [
    'scale-out',
    'when {n} CPU or memory stays above eighty percent',
    [
      'Check current CPU and memory usage on the {s} dashboard',
      'Add two more {s} replicas in the deployment manifest',
      'Apply the {s} manifest to the cluster',
      'Wait until the new {s} replicas report healthy',
      'Rebalance the {d} across the replicas',
    ],
  ],
  [
    'debug-latency',
    'when {n} requests become slow or time out',
    [
      'Open the {s} metrics dashboard and note the p99 latency',
      'Find the slowest requests in the {s} log',
      'Explain the slow query plan with {c} explain',
      'Add an index or cache entry for the hot {s} path',
      'Compare {s} latency before and after the change',
    ],
  ],
  [
    'rollback',
    'when a {n} deployment breaks production and must be undone',
    [
      'Freeze further {s} deploys in the release channel',
      'Find the previous good {s} release tag',
      'Redeploy the previous {s} release with {c}',
      'Watch the {s} error rate for fifteen minutes',
      'Write an incident note with the broken {n} release tag',
    ],
  ],
  [
    'disk-full',
    'when the {n} disk is almost full',
    [
      'Find the largest files on the {s} volume with du',
      'Delete old rotated logs of {s}',
      'Compact the {d} with {c} compact',
      'Grow the {s} volume by fifty percent if still above ninety percent',
      'Add an alert at eighty five percent disk usage of {s}',
    ],
  ],
  [
    'renew-certificate',
    'when the {n} TLS certificate expires within two weeks',
    [
      'Request a new {s} certificate from the certificate authority',
      'Install the certificate and private key on the {s} hosts',
      'Reload {s} so it serves the new certificate',
      'Check the {s} expiry date with openssl s_client',
      'Remove the old {s} certificate from the secret manager',
    ],
  ],
  [
    'onboard-user',
    'when a new engineer needs access to {n}',
    [
      'Open a {n} access request ticket approved by the team lead',
      'Create the user account in {s} with read only rights',
      'Add the user to the {s} on call group',
      'Send the engineer the {s} runbook link',
      'Review the granted {s} rights after one week',
    ],
  ],
  [
    'offboard-user',
    'when an engineer with {n} access leaves the team',
    [
      'Disable the user account in {s} immediately',
      'Revoke the user {s} tokens and sessions',
      'Transfer ownership of the user {d} to the team',
      'Remove the user from the {s} on call group',
      'Record the removal in the {n} access log',
    ],
  ],
  [
    'failover',
    'when the {n} primary node is down',
    [
      'Confirm the primary {s} node is unreachable from two places',
      'Promote the replica with {c} promote',
      'Point the {s} DNS record at the new primary',
      'Rebuild the old {s} primary as a replica with {c}',
      'Post a {n} status update in the incident channel',
    ],
  ],
  [
    'rotate-logs',
    'when {n} logs grow without bound',
    [
      'Check the logrotate rule for {s}',
      'Set daily {s} log rotation with fourteen files kept',
      'Compress rotated {s} logs with gzip',
      'Send a reopen signal to {s} after rotation',
      'Verify new {s} log files appear the next day',
    ],
  ],
  [
    'health-check',
    'every morning or when someone asks whether {n} is fine',
    [
      'Run {c} status on every node',
      'Look at the error rate panel on the {s} dashboard',
      'Check replication lag of the {d}',
      'Check free disk space on the {s} volume',
      'Write the {n} result in the daily ops note',
    ],
  ],
  [
    'change-config',
    'when a {n} setting must change in production',
    [
      'Open a pull request with the {s} config change',
      'Get a review of the {s} change from another engineer',
      'Apply the {s} config on one node and watch the metrics',
      'Roll the {s} config out to the remaining nodes',
      'Record the change in the {n} changelog',
    ],
  ],
  [
    'migrate-host',
    'when {n} must move to new hardware or another region',
    [
      'Provision the new {s} host with the same config',
      'Start replication of the {d} from the old host',
      'Wait until {s} replication lag is zero',
      'Switch {s} clients to the new host',
      'Decommission the old {s} host after one week',
    ],
  ],
  [
    'security-patch',
    'when a security advisory affects {n}',
    [
      'Read the advisory and the affected {n} versions',
      'Check which {s} nodes run an affected version',
      'Apply the vendor patch on a staging node first',
      'Roll the {s} patch to production in a maintenance window',
      'Scan the {s} nodes again to prove they are fixed',
    ],
  ],
  [
    'load-test',
    'before a launch that will raise {n} traffic',
    [
      'Write a {s} load profile from last month peak traffic',
      'Point the load generator at the staging {s} endpoint',
      'Ramp the {s} load up to three times the peak',
      'Record {s} throughput and error rate at each step',
      'File {n} tickets for every bottleneck found',
    ],
  ],
  [
    'cleanup-data',
    'when old {n} {d} take space nobody needs',
    [
      'List {d} not read for a year with {c} stats',
      'Ask the owners whether the {d} may go',
      'Export the approved {d} to cold storage',
      'Drop the exported {d} from {s}',
      'Report the {s} space saved in the team channel',
    ],
  ],
  [
    'monitoring-setup',
    'when a new {n} cluster has no monitoring yet',
    [
      'Install the {s} exporter on every node',
      'Add the {s} scrape target to the metrics server config',
      'Import the {s} dashboard into the dashboard tool',
      'Create {s} alerts for error rate and saturation',
      'Test the alert by stopping the {s} exporter for five minutes',
    ],
  ],
];
