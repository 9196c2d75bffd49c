/** Skills written for the dream pass's specs: a paraphrased pair, a near miss, and notes that link to them. */

export const SKILL_FLAKY = `---
type: skill
name: flaky-ci
version: 3
trigger: when CI fails intermittently on the main branch
last_updated: 2026-10-01
status: active
---

# Flaky CI

1. Open the failing CI run and copy the failing test name
2. Re-run only the failing job to confirm the failure is intermittent
3. Search the test log for timeouts and race conditions
4. Mark the test as flaky in the quarantine list
5. Open an issue with the log excerpt and assign the test owner
`;

export const SKILL_RETRY = `---
type: skill
name: retry-intermittent-tests
version: 1
trigger: whenever continuous integration fails now and then on main
last_updated: 2026-09-12
status: active
---

# Intermittent test failures

- Open the failed CI run and write down the name of the failing test
- Run the failing job again to verify the failure is intermittent
- Grep the test log for race conditions and timeouts
- Add the test to the quarantine list as flaky
- Tell the team in the CI channel which test was quarantined
- File an issue with the log excerpt and assign the test owner
`;

export const SKILL_PG_BACKUP = `---
type: skill
name: postgres-backup
version: 2
trigger: before a risky migration of the postgres database
last_updated: 2026-10-20
status: active
---

1. Announce the postgres maintenance window in the ops channel
2. Stop writes to the postgres primary
3. Take a pg_dump of the postgres database to the backup bucket
4. Check the dump checksum against the bucket copy
5. Resume writes to the postgres primary
`;

export const SKILL_PG_RESTORE = `---
type: skill
name: postgres-restore
version: 1
trigger: when the postgres database is lost or corrupted
last_updated: 2026-10-21
status: active
---

1. Announce the postgres outage in the ops channel
2. Stop the postgres service on every node
3. Download the newest dump from the backup bucket
4. Load the dump with pg_restore into an empty postgres database
5. Start the postgres service and watch the log for errors
`;

export const SKILL_DEPLOY = `---
type: skill
name: deploy-frontend
version: 1
trigger: when a frontend release is ready to ship
last_updated: 2026-10-02
status: active
---

1. Merge the release branch into main
2. Wait for the build pipeline to publish the bundle
3. Purge the CDN cache for the app domain
4. Smoke test the login page in a private window
`;
