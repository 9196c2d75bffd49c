// The search index's worker thread run from the TypeScript sources (tests, `lucid` without its build):
// on Node 20, `--import tsx` in a worker's execArgv does not reach the worker's own loader, so the
// worker script is loaded through tsx's require hook instead. Pass this file as `indexWorkers.script`.
require('tsx/cjs');
require('./index-worker.ts');
