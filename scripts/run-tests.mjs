// Runs vitest and ends with the plain `N passed, M failed` line that CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const resultsFile = '.vitest-results.json';
rmSync(resultsFile, { force: true });
const run = spawnSync(
  'pnpm',
  [
    'exec',
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed = results.numPassedTests ?? 0;
  // Failed tests, plus files that failed without a failed test (an import or hook error).
  // numFailedTestSuites would count every describe block around a failed test again.
  const brokenFiles = (results.testResults ?? []).filter(
    (file) =>
      file.status === 'failed' &&
      !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  failed = (results.numFailedTests ?? 0) + brokenFiles;
  skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
} else {
  failed = 1;
}
const exitCode = run.status ?? 1;
if (exitCode !== 0 && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(exitCode);
